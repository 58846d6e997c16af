import Foundation
import Testing

/// Input the command line refuses itself, in words about what the user typed, the same with a
/// daemon running or not, before anything is sent or played.
extension OnTheTestSink {
@Suite final class CommandLineRefusalTests {
    init() throws {
        try SoundServer.require()
        try SoundServer.setSink(volumes: ["20%"], muted: true)
    }

    /// Runs `herald ARGS` (the lean front, as users do): a failure mentioning `mentions`, the sink untouched.
    func refused(_ harness: HeraldHarness, _ arguments: [String], mentions: String, oneLine: Bool = true) throws -> String {
        let before = try SoundServer.readSink()
        let result = try harness.herald(arguments)
        #expect(result.status != 0)
        if oneLine { #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)") }
        #expect(result.stderr.contains(mentions), "\(arguments): \(result.stderr)")
        #expect(try SoundServer.readSink() == before, "the sink is untouched")
        return result.stderr
    }

    @Test func aControlCharacterIsRefusedAlikeWithAndWithoutADaemon() throws {
        let message = "the text contains a control character (U+0007 BEL) at position 5; remove it"
        let (harness, port) = try HeraldHarness.listening()
        for local in [false, true] {
            let stderr = try refused(harness, ["say", "bell\u{7}"] + (local ? ["--local"] : []), mentions: message)
            #expect(!stderr.contains("JSON") && !stderr.contains("inside a string"), "nothing about JSON the user never wrote")
        }
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        for local in [false, true] {
            let stderr = try refused(harness, ["say", "bell\u{7}"] + (local ? ["--local"] : []), mentions: message)
            #expect(!stderr.contains("JSON") && !stderr.contains("inside a string"), "\(stderr)")
        }
        #expect(try harness.history().isEmpty, "nothing was sent, queued or logged")
        // Tabs and line breaks are text, as the API takes them.
        let fine = try harness.herald(["say", "Counter\tthree\nis open"])
        #expect(fine.status == 0, "\(fine.stderr)")
    }

    /// One text limit (`api.max_text_chars`, 1000 by default) and one chime check, with a daemon
    /// or without: `--local` runs the daemon's own validator before anything touches the sink.
    @Test func aLongTextAndAMissingChimeAreRefusedAlikeWithAndWithoutADaemon() throws {
        let (harness, port) = try HeraldHarness.listening()
        let long = String(repeating: "Table nine ", count: 137).trimmingCharacters(in: .whitespaces)  // 1,506 characters
        let limit = "is \(long.count) characters; at most 1000"
        let chime = "'no-such-chime' is not a chime in Sounds/chimes"
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sounds/chimes/ding.flac").standardized.path
        for local in [false, true] {
            _ = try refused(harness, ["say", long] + (local ? ["--local"] : []), mentions: limit)
            _ = try refused(harness, ["say", "--chime", "no-such-chime", "Hello"] + (local ? ["--local"] : []), mentions: chime)
            _ = try refused(harness, ["play", "--chime", "no-such-chime", file] + (local ? ["--local"] : []), mentions: chime)
        }
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        _ = try refused(harness, ["say", long], mentions: limit)
        _ = try refused(harness, ["say", "--chime", "no-such-chime", "Hello"], mentions: chime)
        #expect(try harness.history().isEmpty, "nothing was queued or logged")
    }

    @Test func aNegativeAmountIsRefusedAsSuch() throws {
        let harness = try HeraldHarness()
        for amount in ["-5", "-5.50", "-.5"] {
            let stderr = try refused(harness, ["pay", amount], mentions: "amount: '\(amount)' is negative; a payment amount must be positive")
            #expect(!stderr.contains("Missing expected argument"))
        }
        _ = try refused(harness, ["pay", "--currency", "EUR", "-5"], mentions: "a payment amount must be positive")
        _ = try refused(harness, ["pay", "--", "-5"], mentions: "a payment amount must be positive")
        // Nothing paid is not news for the counter, here or through the daemon (APITests).
        _ = try refused(harness, ["pay", "--local", "0.00"], mentions: "amount: '0.00' is zero")
        // What the parser said before still reads the same for what is not a number.
        _ = try refused(harness, ["pay"], mentions: "Missing expected argument '<amount>'", oneLine: false)
        _ = try refused(harness, ["pay", "5", "--bogus"], mentions: "Unknown option '--bogus'", oneLine: false)
        _ = try refused(harness, ["pay", "5", "6"], mentions: "Unexpected argument '6'", oneLine: false)
        #expect(try harness.history().isEmpty)
        let help = try harness.herald(["pay", "--help"]).stdout
        #expect(help.contains("[--local] <amount> [--currency <currency>]"), "one amount, not optional: \(help)")
    }

    @Test func spaceAroundAnAmountIsRefusedThroughTheDaemonToo() throws {
        let (harness, port) = try HeraldHarness.listening()
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        _ = try refused(harness, ["pay", " 25"], mentions: "amount: ' 25' starts with a space")
        _ = try refused(harness, ["pay", "25 "], mentions: "amount: '25 ' ends with a space")
        _ = try refused(harness, ["pay", "\u{A0}25"], mentions: "starts with a no-break space (U+00A0)")
        _ = try refused(harness, ["pay", "25\u{A0}", "--currency", "EUR"], mentions: "ends with a no-break space (U+00A0)")
        #expect(try harness.history().isEmpty)
    }

    /// `herald remind add` sends every option as the API's field, and list, ack and rm reach it.
    @Test func aReminderMadeFromTheCommandLineHasEveryOptionGiven() throws {
        let (harness, port) = try HeraldHarness.listening()
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let added = try harness.herald(["remind", "add", "Blood pressure pills", "--at", "08:00,20:00", "--days", "mon-fri",
                                        "--time-zone", "Europe/Berlin", "--priority", "high", "--repeat-every", "5m",
                                        "--repeat-times", "2", "--json"])
        #expect(added.status == 0, "\(added.stderr)")
        let reminder = try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any] ?? [:]
        let id = try #require(reminder["id"] as? String, "\(added.stdout)")
        #expect(reminder["body"] as? String == "Blood pressure pills" && reminder["priority"] as? String == "high", "\(reminder)")
        #expect(reminder["time_zone"] as? String == "Europe/Berlin")
        let schedule = reminder["schedule"] as? [String: Any]
        #expect(schedule?["daily"] as? [String] == ["08:00", "20:00"] && schedule?["days"] as? [String] == ["mon", "tue", "wed", "thu", "fri"],
                "\(reminder)")
        let repeats = reminder["repeat"] as? [String: Any]
        #expect(repeats?["times"] as? Int == 2, "\(reminder)")
        let listed = try harness.herald(["remind", "list", "--json"]).stdout
        #expect(listed.contains(id))
        let ack = try harness.herald(["remind", "ack", id])
        #expect(ack.status != 0 && ack.stderr.contains("not waiting"), "said not yet: \(ack.stderr)")
        let removed = try harness.herald(["remind", "rm", id])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(!(try harness.herald(["remind", "list", "--json"]).stdout.contains(id)))
    }

    @Test func aReminderIDIsShownAsTyped() throws {
        let (harness, port) = try HeraldHarness.listening()
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        for command in [["remind", "rm"], ["remind", "ack"]] {
            let result = try harness.herald(command + ["../x"])
            #expect(result.status != 0)
            #expect(result.stderr.contains("no reminder '../x'"), "\(result.stderr)")
            #expect(!result.stderr.contains("%2F"), "\(result.stderr)")
            #expect(!result.stderr.contains("Usage:"), "the daemon's answer is not a typing mistake: \(result.stderr)")
        }
    }
}
}
