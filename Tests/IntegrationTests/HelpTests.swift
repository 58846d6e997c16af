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
