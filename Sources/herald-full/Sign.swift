import ArgumentParser
import Foundation
import HeraldIntake

extension Herald {
    /// `herald sign --secret-file F < body.json`: the `Herald-Signature` header for a body, as
    /// the payment backend sends it (docs/signing.md).
    struct Sign: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign",
            abstract: "Prints the Herald-Signature header for the request body on standard input.",
            discussion: """
                The body is signed exactly as read (send those same bytes). Example:
                  herald sign --secret-file till.secret < payment.json
                  curl --json @payment.json -H "$(herald sign --secret-file till.secret < payment.json)" 127.0.0.1:7370/v1/announcements
                """)

        @Option(name: .customLong("secret-file"), help: "A file holding the secret (as in api.signing_secrets; surrounding whitespace is ignored).")
        var secretFile: String

        @Flag(name: .customLong("value"), help: "Print only the value (t=...,v1=...), e.g. for an MQTT 5 user property.")
        var valueOnly = false

        func run() throws {
            guard let data = FileManager.default.contents(atPath: secretFile),
                  let text = String(data: data, encoding: .utf8) else {
                throw ValidationError("cannot read the secret file \(secretFile); give a file this user may read")
            }
            let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard secret.utf8.count >= 16 else {
                throw ValidationError("the secret in \(secretFile) is shorter than 16 characters; make one with 'openssl rand -hex 32'")
            }
            let body = FileHandle.standardInput.readDataToEndOfFile()
            let value = RequestSignature.value(body: body, secret: secret)
            print(valueOnly ? value : "\(RequestSignature.headerName): \(value)")
        }
    }
}
