import Foundation
import Testing

/// docs/signing.md's "Signed payments" examples, run as a user would run them (a shell line with
/// openssl and curl, Python, Node) against a real daemon that requires signed payments: each
/// is accepted and its row names the secret; the same payment unsigned is refused.
extension OnTheTestSink {
@Suite final class SignedPaymentReadmeTests {
    init() throws {
        try SoundServer.require()
    }

    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../docs/signing.md").standardized.path

    /// The fenced blocks of docs/signing.md's "Signed payments" section, by language.
    static func examples() throws -> [String: String] {
        let text = try String(contentsOfFile: readme, encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## Signed payments\n").dropFirst().first?
            .components(separatedBy: "\n## ").first, "docs/signing.md has Signed payments")
        var blocks: [String: String] = [:]
        let parts = section.components(separatedBy: "```")
        for index in stride(from: 1, to: parts.count, by: 2) {
            let block = parts[index]
            let language = String(block.prefix { $0 != "\n" })
            blocks[language] = String(block.dropFirst(language.count + 1))
        }
        return blocks
    }

    @Test func theShellPythonAndNodeExamplesSignPaymentsTheDaemonAccepts() throws {
        let secret = "4f1c2e8a9b7d6c5e4f3a2b1c0d9e8f7a"
        let (harness, port) = try HeraldHarness.listening("""
              signing_secrets:
                till_file: till.secret
              require_signature: [payment]
            """)
        try (secret + "\n").write(toFile: harness.folder + "/till.secret", atomically: true, encoding: .utf8)
        try #"{"payment": {"amount": "1.00"}, "request_id": "sign-cli"}"#.write(toFile: harness.folder + "/payment.json", atomically: true, encoding: .utf8)
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let examples = try Self.examples()
        let binFolder = (HeraldHarness.binary as NSString).deletingLastPathComponent
        let path = binFolder + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        for (language, program) in [("sh", "/bin/sh"), ("python", "/usr/bin/python3"), ("js", "node")] {
            let code = try #require(examples[language], "a \(language) example").replacingOccurrences(of: "7370", with: "\(port)")
            let file = harness.folder + "/example.\(language)"
            try code.write(toFile: file, atomically: true, encoding: .utf8)
            let run = try SoundServer.run("/usr/bin/env", ["sh", "-c", "cd '\(harness.folder)' && \(program) '\(file)'"],
                                          environment: ["PATH": path])
            #expect(run.status == 0, "\(language): \(run.stdout) \(run.stderr)")
            #expect(run.stdout.contains(#""signed_by":"till""#), "\(language): \(run.stdout) \(run.stderr)")
        }
        // The shell example's first line printed a header for payment.json.
        let header = try SoundServer.run("/usr/bin/env", ["sh", "-c", "cd '\(harness.folder)' && herald sign --secret-file till.secret < payment.json"],
                                         environment: ["PATH": path])
        #expect(header.stdout.hasPrefix("Herald-Signature: t="), "\(header.stdout) \(header.stderr)")
        let (status, _, _) = Daemon.rawRequest("POST", daemon.base + "/v1/announcements", #"{"payment": {"amount": "1.00"}}"#)
        #expect(status == 401, "the same payment unsigned is refused")
        let signed = try harness.history().filter { $0["body_kind"] as? String == "payment" }
        #expect(signed.count == 3 && signed.allSatisfy { $0["signed_by"] as? String == "till" }, "\(signed)")
    }
}
}
