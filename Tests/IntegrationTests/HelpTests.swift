import Foundation
import Testing

/// The built binary's help, as a person sees it.
@Suite struct HelpTests {
    @Test func theRootHelpListsEveryCommand() throws {
        let help = try SoundServer.run(HeraldHarness.binary, ["--help"])
        #expect(help.status == 0)
        for command in ["serve", "play", "say", "pay", "status", "history", "restore", "cache", "pack", "config"] {
            #expect(help.stdout.contains("  \(command) "), "\(command) missing from:\n\(help.stdout)")
        }
    }

    @Test func versionIsOneLineFromTheOneDeclaration() throws {
        let result = try SoundServer.run(HeraldHarness.binary, ["--version"])
        #expect(result.status == 0)
        let version = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // Semantic version, nothing else on the line: scripts/package.sh uses it as the .deb's version.
        #expect(version.range(of: #"^[0-9]+\.[0-9]+\.[0-9]+$"#, options: .regularExpression) != nil, "got '\(result.stdout)'")
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/herald-full/Herald.swift")
        let declared = try String(contentsOf: sources, encoding: .utf8)
        #expect(declared.contains("static let version = \"\(version)\""), "one source of the version string")
    }

    @Test func payExplainsItsAmountAndOptions() throws {
        let help = try SoundServer.run(HeraldHarness.binary, ["pay", "--help"])
        #expect(help.stdout.contains("The amount, exactly as a decimal: 25.30"))
        #expect(help.stdout.contains("--currency"))
        #expect(help.stdout.contains("--local"))
    }

    @Test func aBadOptionIsNamed() throws {
        let result = try SoundServer.run(HeraldHarness.binary, ["history", "--limit", "0"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--limit must be from 1 to 10000, not 0"))
    }
}
