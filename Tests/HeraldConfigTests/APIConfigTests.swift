import Foundation
import HeraldConfig
import Testing

/// The `api:` keys that decide who may make Herald speak: host names, signing secrets, the kinds
/// that must be signed, the per-client connection cap.
@Suite struct APIConfigTests {
    @Test func secretsHostnamesAndSignedKindsAreRead() async throws {
        let folder = try ConfigFolder()
        try Data("  0123456789abcdef0123456789abcdef\n".utf8).write(to: URL(fileURLWithPath: folder.path + "/backend.secret"))
        let configuration = try await folder.load(.utf8("""
            api:
              hostnames: [Herald.Local., counter-1.shop.example]
              signing_secrets:
                till: "a-secret-of-at-least-16"
                backend_file: backend.secret
              require_signature: [payment, audio_url]
              signature_tolerance: 2m
              max_connections_per_client: 8
            """))
        let api = configuration.api
        #expect(api.hostnames == ["herald.local", "counter-1.shop.example"])
        #expect(api.signingSecrets == ["till": "a-secret-of-at-least-16", "backend": "0123456789abcdef0123456789abcdef"])
        #expect(api.requireSignature == [.payment, .audioURL])
        #expect(api.signatureTolerance == .seconds(120))
        #expect(api.maxConnectionsPerClient == 8)
    }

    @Test func allNamesEveryKindAndTheDefaultsRequireNone() async throws {
        let folder = try ConfigFolder()
        let all = try await folder.load(.utf8("api:\n  signing_secrets: {till: 0123456789abcdef}\n  require_signature: [all]\n"))
        #expect(all.api.requireSignature == Set(SignedKind.allCases))
        let none = try await folder.load(.utf8("sink: a\n"))
        #expect(none.api.requireSignature.isEmpty)
        #expect(none.api.signatureTolerance == .seconds(300))
        #expect(none.api.maxConnectionsPerClient == 64)
    }

    static let bad: [BadConfig] = [
        BadConfig("an unknown kind to sign", "api:\n  signing_secrets: {till: 0123456789abcdef}\n  require_signature: [payments]\n",
                  line: 3, key: "api.require_signature", says: "'payments' is not a kind; use payment, text, clip, audio_url or all"),
        BadConfig("signatures required with no secret", "api:\n  require_signature: [payment]\n", line: 2,
                  key: "api.require_signature", says: "api.signing_secrets is empty"),
        BadConfig("a short secret", "api:\n  signing_secrets:\n    till: short\n", line: 3,
                  key: "api.signing_secrets.till", says: "at least 16 characters; make one with 'openssl rand -hex 32'"),
        BadConfig("a secret file that is not there", "api:\n  signing_secrets:\n    till_file: nowhere.secret\n", line: 3,
                  key: "api.signing_secrets.till_file", says: "cannot read $DIR/nowhere.secret"),
        BadConfig("a host name with a port", "api:\n  hostnames: [herald.local:7370]\n", line: 2,
                  key: "api.hostnames", says: "'herald.local:7370' is not a host name"),
        BadConfig("a cap of zero", "api:\n  max_connections_per_client: 0\n", line: 2,
                  key: "api.max_connections_per_client", says: "from 1 to 100000"),
    ]

    @Test(arguments: bad)
    func aBadAPIKeyIsNamedWithItsLine(_ bad: BadConfig) async throws {
        let folder = try ConfigFolder()
        let problems = try await folder.problems(bad.bytes(in: folder))
        let problem = try #require(problems.first { $0.key == bad.key }, "\(problems)")
        #expect(problem.line == bad.line)
        #expect(problem.message.contains(folder.expand(bad.says)), "\(problem.message)")
    }
}
