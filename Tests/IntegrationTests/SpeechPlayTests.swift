import Foundation
import Testing

/// `herald say` and `herald pay` on the real server, with the real espeak-ng and voice packs.
extension OnTheTestSink {
@Suite final class SpeechPlayTests {
    init() throws {
        try SoundServer.require()
        try SoundServer.setSink(volumes: ["60%"], muted: false)
    }

    /// Runs `herald ARGS` while recording the monitor; returns the log row and the heard span.
    func heard(_ harness: HeraldHarness, _ arguments: [String]) throws -> (row: [String: Any], span: Double) {
        let monitor = try MonitorRecording()
        let result = try harness.herald(arguments + ["--json"])
        usleep(200_000)
        monitor.stop()
        #expect(result.status == 0, "\(result.stderr)")
        let row = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
        let span = try #require(monitor.soundSpan(), "nothing heard on the monitor")
        return (row, span.end - span.start)
    }

    @Test func theSecondSayComesFromTheCacheAndSoundsTheSameLength() throws {
        let harness = try HeraldHarness()
        let sentence = ["say", "The pharmacy closes at six today."]
        let first = try heard(harness, sentence)
        let second = try heard(harness, sentence)
        #expect(first.row["clip_source"] as? String == "synth")
        #expect(second.row["clip_source"] as? String == "cache")
        #expect(abs(first.span - second.span) < 0.1, "synth \(first.span) s, cache \(second.span) s")
        #expect(first.span > 1.2)
        let stats = try harness.herald(["cache", "stats", "--json"]).stdout
        let totals = try JSONSerialization.jsonObject(with: Data(stats.utf8)) as? [String: Any] ?? [:]
        #expect(totals["entries"] as? Int == 1)
        #expect(totals["hits"] as? Int == 1, "the second say did no synthesis")
        print("figures: say heard for \(first.span) s synthesized, \(second.span) s cached; onset \(first.row["onset_latency_milliseconds"] ?? "?") ms then \(second.row["onset_latency_milliseconds"] ?? "?") ms")
    }

    /// Issue 44: a streamed sentence had a fixed 60 s bound (67 s with its margins), and a long
    /// text failed mid-way with "playback did not finish". With `api.max_text_chars` raised, a
    /// 3,000-character sentence (no comma or full stop: one clause, streamed) at a fast rate,
    /// about 87 s of speech, is said to its end.
    @Test func aThreeThousandCharacterSentenceIsSaidToItsEnd() throws {
        let words = ["the", "shop", "will", "close", "early", "today", "because", "of", "holiday", "please", "collect",
                     "your", "orders", "before", "five", "and", "deliveries", "resume", "on", "monday", "morning"]
        var text = ""
        var index = 0
        while text.count < 3_000 {
            text += (text.isEmpty ? "" : " ") + words[(index * 7 + index / 3) % words.count]
            index += 1
        }
        text = String(text.prefix(3_000))
        let (harness, port) = try HeraldHarness.listening("  max_text_chars: 5000\nspeech:\n  rate: 300\n")
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let monitor = try MonitorRecording()
        let (status, row) = try daemon.post("/v1/announcements?wait=true", #"{"text": "\#(text)"}"#)
        usleep(200_000)
        monitor.stop()
        #expect(status == 200 && row["outcome"] as? String == "played", "\(row)")
        let heard = try #require(monitor.soundSpan(), "nothing heard on the monitor")
        let span = heard.end - heard.start
        #expect(span > 70, "heard for \(span) s, past the old 67 s bound")
        let duration = Double(row["duration_milliseconds"] as? Int ?? 0) / 1000
        #expect(abs(duration - span) < 3, "logged \(duration) s, heard \(span) s")
        print("figures: a 3,000-character sentence heard for \(span) s")
    }

    @Test(arguments: [("25.30", "USD", "en"), ("1002.05", "CNY", "zh")])
    func aPaymentFromThePackIsHeardForTheLengthOfItsClips(amount: String, currency: String, language: String) throws {
        let harness = try HeraldHarness()
        // Muted and idle: the restore (mute again) must wait until the last word is heard, or it
        // would cut what the sink holds rendered ahead.
        try SoundServer.setSink(volumes: ["20%"], muted: true)
        let (row, span) = try heard(harness, ["pay", amount, "--currency", currency, "--lang", language])
        #expect(row["clip_source"] as? String == "pack")
        let composed = Double(row["duration_milliseconds"] as? Int ?? 0) / 1000
        #expect(composed > 1)
        #expect(abs(span - composed) < 0.15, "heard \(span) s of a \(composed) s composition")
    }

    /// A harness whose `speech.packs` is a folder of its own, where `herald pack build` writes.
    static func harnessWithOwnPacks() throws -> (HeraldHarness, String) {
        let harness = try HeraldHarness(extraConfig: "speech:\n  packs: PACKS\n")
        let packs = harness.folder + "/packs"
        try String(contentsOfFile: harness.configPath, encoding: .utf8).replacingOccurrences(of: "PACKS", with: packs)
            .write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        return (harness, packs)
    }

    /// Issue 50: a Marathi pack holds espeak-ng's own 0 to 99, hundred, thousand, lakh and crore;
    /// 12,34,567.89 INR is composed from it alone ("12 लाख 34 हजार 5 शे 67 भारतीय रुपये आणि 89
    /// पैसे", eleven clips) and heard for as long as it lasts.
    @Test func aMarathiPackComposesLakhsAndCroresFromItsClips() throws {
        let (harness, packs) = try Self.harnessWithOwnPacks()
        let built = try harness.herald(["pack", "build", "mr", "--currency", "INR"])
        #expect(built.status == 0, "\(built.stdout)\(built.stderr)")
        let manifest = try String(contentsOfFile: packs + "/mr/manifest.json", encoding: .utf8)
        #expect(["\"99\"", "लाख", "कोटी", "भारतीय रुपये", "पैसे"].allSatisfy(manifest.contains), "\(manifest.prefix(300))")
        let (row, span) = try heard(harness, ["pay", "1234567.89", "--lang", "mr", "--currency", "INR"])
        #expect(row["clip_source"] as? String == "pack", "\(row)")
        let composed = Double(row["duration_milliseconds"] as? Int ?? 0) / 1000
        #expect(composed > 3 && composed < 12, "eleven words in \(composed) s")
        #expect(abs(span - composed) < 0.15, "heard \(span) s of a \(composed) s composition")
    }

    /// A payment in Spanish, from CLDR's words, said by espeak-ng's Spanish: heard for as long as
    /// "Pago recibido: veinticinco pesos mexicanos con treinta centavos" takes (about 4 s).
    @Test func aPaymentInSpanishIsHeardForThePlausibleLengthOfItsSentence() throws {
        let harness = try HeraldHarness()
        let printed = try harness.herald(["pay", "25.30", "--lang", "es", "--currency", "MXN", "--print"])
        #expect(printed.stdout == "Pago recibido: veinticinco pesos mexicanos con treinta centavos\n", "\(printed.stdout)\(printed.stderr)")
        #expect(try harness.history().isEmpty, "--print says nothing")
        let (row, span) = try heard(harness, ["pay", "25.30", "--lang", "es", "--currency", "MXN"])
        #expect(row["clip_source"] as? String == "synth", "no Spanish pack: synthesized")
        #expect(row["body"] as? String == "25.30 MXN")
        #expect(span > 2.5 && span < 7, "heard for \(span) s")
    }

    /// `herald pack build hi` renders every word of Hindi amounts in rupees; 250.75 INR is then
    /// composed from its clips alone.
    @Test func aHindiPackComposesAPaymentInRupeesFromItsClips() throws {
        let (harness, packs) = try Self.harnessWithOwnPacks()
        let built = try harness.herald(["pack", "build", "hi", "--currency", "INR"])
        #expect(built.status == 0, "\(built.stdout)\(built.stderr)")
        #expect(FileManager.default.fileExists(atPath: packs + "/hi/manifest.json"))
        let (row, span) = try heard(harness, ["pay", "250.75", "--lang", "hi", "--currency", "INR"])
        #expect(row["clip_source"] as? String == "pack", "\(row)")
        let composed = Double(row["duration_milliseconds"] as? Int ?? 0) / 1000
        #expect(composed > 2)
        #expect(abs(span - composed) < 0.15, "heard \(span) s of a \(composed) s composition")
    }

    @Test(arguments: [
        (["pay", "--", "-5"], "negative"), (["pay", "12.345"], "more decimals than USD has"),
        (["pay", "NaN"], "not a number"), (["pay", "5", "--currency", "XBT"], "currency 'XBT'"),
        (["say", "hello", "--lang", "xx"], "--lang: 'xx' is not a language espeak-ng speaks"),
        (["pay", "5", "--lang", "as"], "--lang: amounts cannot be spoken in 'as'"),
        (["say", "hello", "--voice", "zz-nonexistent"], "--voice: 'zz-nonexistent' is neither an alias"),
        (["say", "hello", "--voice", "../../../etc/passwd"], "--voice"),
        (["pay", "5", "--chime", "trumpet"], "chime: 'trumpet' is not a chime"),
    ])
    func badSpeechInputFailsCleanly(arguments: [String], mentions: String) throws {
        let harness = try HeraldHarness()
        let before = try SoundServer.readSink()
        let result = try harness.herald(arguments)
        #expect(result.status != 0)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains(mentions), "\(result.stderr)")
        #expect(try SoundServer.readSink() == before)
        // Refused at intake (the amount, the currency, --lang, --voice, the chime), before an
        // announcement exists and before the sink is touched: nothing to log as a row.
        #expect(try harness.history().isEmpty)
    }
}
}
