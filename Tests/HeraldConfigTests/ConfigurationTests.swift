import Foundation
import HeraldApp
import HeraldConfig
import HeraldCore
import Speech
import Testing

@Suite struct ConfigurationTests {
    /// Writes `text` to a temporary file and loads it.
    func load(_ text: String) async throws -> HeraldConfiguration {
        let path = NSTemporaryDirectory() + "herald-config-\(UUID().uuidString).yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await HeraldConfiguration.load(file: path, stateDirectory: "/tmp/herald-state")
    }

    func problems(_ text: String) async -> [ConfigProblem] {
        do {
            _ = try await load(text)
            return []
        } catch let error as ConfigError {
            return error.problems
        } catch {
            Issue.record("unexpected error \(error)")
            return []
        }
    }

    @Test func theShippedFileIsValidAndEqualsTheBuiltInDefaults() async throws {
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Config/herald.yaml").standardized.path
        let configuration = try await HeraldConfiguration.load(file: shipped, stateDirectory: "/tmp/herald-state")
        let defaults = HeraldConfiguration.defaults(stateDirectory: "/tmp/herald-state",
                                                    soundsDirectory: configuration.soundsDirectory)
        #expect(configuration.safeguard == SafeguardSettings.defaults)
        #expect(configuration.databasePath == "/tmp/herald-state/herald.sqlite")
        #expect(configuration.speech == defaults.speech)
        #expect(configuration.cache == defaults.cache)
        #expect(configuration.chimes == defaults.chimes)
        #expect(configuration.api == defaults.api)
        #expect(configuration.queue == defaults.queue)
        #expect(configuration.priorities == PriorityPolicies.defaults)
        #expect(configuration.audioURL == defaults.audioURL)
        #expect(configuration.mqtt == nil, "MQTT is off by default")
        #expect(configuration.reminders == defaults.reminders)
        #expect(configuration.quietHours == defaults.quietHours)
        #expect(configuration.history == defaults.history)
    }

    @Test func keptAudioIsReadAndDefaultsToAWeek() async throws {
        let defaults = HistorySettings()
        #expect(defaults.audioRetention == .seconds(7 * 86_400) && defaults.audioMaxBytes == 200_000_000)
        let configuration = try await load("history:\n  audio_retention: 36h\n  audio_max_bytes: 20MB\n")
        #expect(configuration.history.audioRetention == .seconds(36 * 3600))
        #expect(configuration.history.audioMaxBytes == 20_000_000)
        let off = try await load("history:\n  audio_retention: 0\n")
        #expect(off.history.audioRetention == .zero, "0 keeps no audio")
    }

    @Test func valuesAreRead() async throws {
        // A folder any user may create: database.path is checked to be writable.
        let database = NSTemporaryDirectory() + "herald-\(UUID().uuidString)/log.sqlite"
        let configuration = try await load("""
            sink: kitchen
            safeguard:
              min_volume: 40
              target_volume: 65.5%
              max_volume: 120%
              duck_level: 10%
              ramp_ms: 0
              lead_in_by_class:
                hdmi: 0.8s
                virtual: 20
              lead_in_sinks:
                alsa_output.pci-0000_00_1f.3.hdmi-stereo: 1200ms
              mute: respect
            database:
              path: \(database)
            """)
        let safeguard = configuration.safeguard
        #expect(safeguard.sinkName == "kitchen")
        #expect(safeguard.minVolume == Volume(percent: 40))
        #expect(safeguard.targetVolume == Volume(percent: 65.5))
        #expect(safeguard.maxVolume == Volume(percent: 120))
        #expect(safeguard.duckLevel == 0.1)
        #expect(safeguard.rampMilliseconds == 0)
        #expect(safeguard.leadInByClass[.hdmi] == 800 && safeguard.leadInByClass[.virtual] == 20)
        #expect(safeguard.leadInByClass[.bluetooth] == 700, "the classes not named keep their defaults")
        #expect(safeguard.leadInBySink == ["alsa_output.pci-0000_00_1f.3.hdmi-stereo": 1200])
        #expect(safeguard.mutePolicy == .respect)
        #expect(configuration.databasePath == database)
    }

    @Test func everyProblemIsNamedWithItsLineAndKey() async {
        let found = await problems("""
            safeguard:
              min_volume: 80%
              target_volume: 250%
              duck_levle: 30%
              mute: sometimes
            """)
        #expect(found.map(\.line) == [2, 3, 4, 5])
        #expect(found.map(\.key) == ["safeguard.min_volume", "safeguard.target_volume",
                                     "safeguard.duck_levle", "safeguard.mute"])
        #expect(found[1].message.contains("250%"))
        #expect(found[2].message.contains("did you mean 'safeguard.duck_level'"))
        #expect(found[3].message.contains("override or respect"))
    }

    @Test func minAboveTargetIsRefused() async {
        let found = await problems("safeguard:\n  min_volume: 60%\n  target_volume: 55%\n")
        #expect(found.count == 1)
        #expect(found.first?.description.hasSuffix("Make min_volume <= target_volume") == true)
        #expect(found.first?.line == 2)
    }

    @Test(arguments: ["abc", "-5%", "nan", "1e9"])
    func badPercentagesAreRefused(value: String) async {
        let found = await problems("safeguard:\n  duck_level: \(value)\n")
        #expect(found.map(\.key) == ["safeguard.duck_level"])
    }

    @Test func brokenYAMLNamesTheLine() async {
        let found = await problems("safeguard:\n  min_volume: 50%\n    target_volume: [1\n")
        #expect(found.count == 1)
        #expect(found.first?.line != nil)
        #expect(found.first?.message.hasPrefix("not valid YAML") == true)
    }

    @Test func aMissingFileIsNamed() async {
        do {
            _ = try await HeraldConfiguration.load(file: "/nonexistent/herald.yaml", stateDirectory: "/tmp")
            Issue.record("loading a missing file succeeded")
        } catch {
            #expect("\(error)".contains("/nonexistent/herald.yaml: no such config file"))
        }
    }

    @Test func noFileMeansDefaultsUnderTheStateDirectory() async throws {
        let configuration = try await HeraldConfiguration.load(file: nil, stateDirectory: "/srv/state")
        #expect(configuration.safeguard == .defaults)
        #expect(configuration.databasePath == "/srv/state/herald.sqlite")
    }

    @Test func theFileComesFromTheFlagThenTheEnvironment() {
        #expect(HeraldConfiguration.path(explicit: "a.yaml", environment: ["HERALD_CONFIG": "b.yaml"]) == "a.yaml")
        #expect(HeraldConfiguration.path(explicit: nil, environment: ["HERALD_CONFIG": "b.yaml"]) == "b.yaml")
        #expect(HeraldConfiguration.path(explicit: nil, environment: [:]) == nil)
        #expect(HeraldConfiguration.defaultStateDirectory(environment: ["HOME": "/home/ann"])
                == "/home/ann/.local/state/herald")
    }

    @Test func speechCacheAndChimesAreRead() async throws {
        let configuration = try await load("""
            safeguard:
              lead_in: never
            speech:
              engine: command
              command: espeak-ng --stdout -v {voice}
              language: zh
              voice: cmn
              rate: 200
              currency: cny
              voices:
                Nova: en-gb+f2
              phrases:
                en: "Paid: {amount}"
            cache:
              max_bytes: 2MB
              warm:
                - Payment received
                - Time to take your medication
            chimes:
              high: ding
              critical: none
            """)
        #expect(configuration.safeguard.leadIn == .never)
        let speech = configuration.speech
        #expect(speech.engine == .command && speech.command == "espeak-ng --stdout -v {voice}")
        #expect(speech.language == "zh" && speech.voice == "cmn" && speech.rate == 200)
        #expect(speech.currency == .cny)
        #expect(speech.voiceAliases["nova"] == "en-gb+f2")
        #expect(speech.voiceAliases["alloy"] == "en-us", "the other default aliases stay")
        #expect(speech.phrase(for: "en") == PhraseTemplate("Paid: {amount}"))
        #expect(configuration.cache.maxBytes == 2_000_000)
        #expect(configuration.cache.warm == ["Payment received", "Time to take your medication"])
        #expect(configuration.chimes[.high]?.hasSuffix("chimes/ding.flac") == true)
        #expect(configuration.chimes[.critical] == nil)
    }

    @Test func phrasesReplaceAnyOfALanguagesSentences() async throws {
        let configuration = try await load("""
            speech:
              language: it
              phrases:
                es:
                  summary: "{count} cobros, en total {amount}"
                  test: "Prueba de Herald."
                pt-BR: "Pix recebido: {amount}"
                it:
                  payment: "Pagamento ricevuto: {amount}"
                  quiet: "Durante le ore di silenzio:"
            """)
        let speech = configuration.speech
        let spanish = speech.phrases(for: "es-MX")
        #expect(spanish.paymentsSummary == "{count} cobros, en total {amount}" && spanish.test == "Prueba de Herald.")
        #expect(spanish.paymentReceived == PhraseTable.of("es").paymentReceived, "what is not given stays the table's")
        #expect(speech.phrase(for: "pt-BR") == PhraseTemplate("Pix recebido: {amount}"))
        #expect(speech.phrase(for: "pt") == PhraseTemplate.standard(language: "pt"), "pt-BR's sentence is not Portugal's")
        #expect(speech.phrases(for: "it").whileItWasQuiet == "Durante le ore di silenzio:")
        #expect(speech.englishPhrases(for: "it") == PhraseKey.allCases.filter { ![.payment, .quiet].contains($0) },
                "Italian has no table: what is not given is English")
        let notice = try #require(speech.englishPhrasesNotice(for: "it"))
        #expect(notice.notice.contains(#"said in English (amounts in it): summary "{count} payments received, total {amount}", test "Herald is ready.", appointment "In {when}: {event}, at {time}""#), "\(notice)")
        #expect(notice.action.hasPrefix("set speech.phrases.it.summary, speech.phrases.it.test, speech.phrases.it.appointment"), "\(notice)")
        #expect(speech.englishPhrases(for: "es").isEmpty && speech.englishPhrasesNotice(for: "es") == nil)
    }

    @Test func badPhrasesAreNamedWithWhatTheyTake() async {
        let found = await problems("""
            speech:
              phrases:
                es:
                  payment: "Pago: {amount} {amount}"
                  summary: "{count} pagos"
                  quiet: "Silencio {amount}:"
                  thanks: "Gracias"
                fr: [a, b]
                "not a tag!": "x {amount}"
            """)
        #expect(found.map(\.key) == ["speech.phrases.es.payment", "speech.phrases.es.summary", "speech.phrases.es.quiet",
                                     "speech.phrases.es.thanks", "speech.phrases.fr", "speech.phrases.not a tag!"])
        #expect(found.first { $0.key == "speech.phrases.es.summary" }?.message.contains("{amount} exactly once") == true)
        #expect(found.first { $0.key == "speech.phrases.es.quiet" }?.message.contains("'{amount}' is not a placeholder of the quiet phrase; it takes no placeholder") == true)
        #expect(found.first { $0.key == "speech.phrases.es.thanks" }?.message.contains("payment, summary, quiet, test") == true)
        #expect(found.allSatisfy { $0.line != nil }, "every problem names its line")
    }

    @Test func badSpeechValuesAreNamed() async {
        let found = await problems("""
            speech:
              engine: festival
              language: as
              rate: 1000
              currency: XBT
              phrases:
                en: "no placeholder"
            cache:
              max_bytes: lots
              warm: just one
            chimes:
              high: trumpet
            """)
        #expect(found.map(\.key) == ["speech.engine", "speech.language", "speech.rate", "speech.currency",
                                     "speech.phrases.en", "cache.max_bytes", "cache.warm", "chimes.high"])
    }

    @Test func anAPIOnTheNetworkNeedsTokens() async {
        let found = await problems("api:\n  listen: 0.0.0.0:7370\n")
        #expect(found.map(\.key) == ["api.listen"])
        #expect(found.first?.message.contains("api.tokens is empty") == true)
        let badRole = await problems("api:\n  tokens:\n    0123456789abcdef0123: superuser\n")
        #expect(badRole.map(\.key) == ["api.tokens.0123456789abcdef0123"])
        let short = await problems("api:\n  tokens:\n    abc: admin\n")
        #expect(short.first?.message.contains("at least 16 characters") == true)
    }

    @Test func queueAndAPIValuesAreRead() async throws {
        let configuration = try await load("""
            api:
              listen: 0.0.0.0:8080
              tokens:
                0123456789abcdef0123: admin
            queue:
              limit: 10
              coalesce_payments_over: 5
            audio_url:
              allow_hosts:
                - Sounds.Example.com
              max_bytes: 1MB
              timeout_ms: 3000
            """)
        #expect(configuration.audioURL.allowHosts == ["sounds.example.com"])
        #expect(configuration.audioURL.maxBytes == 1_000_000 && configuration.audioURL.timeoutMilliseconds == 3000)
        #expect(configuration.api.host == "0.0.0.0" && configuration.api.port == 8080)
        #expect(configuration.api.tokens == ["0123456789abcdef0123": .admin])
        #expect(configuration.queue.queueLimit == 10 && configuration.queue.coalescePaymentsOver == 5)
    }

    @Test func prioritiesAreRead() async throws {
        let configuration = try await load("""
            priorities:
              critical:
                mute: override
                max_age: 2h
              high:
                mute: respect
                max_age: 90
              normal:
                mute: ""
              low:
                max_age: 45s
            """)
        let priorities = configuration.priorities
        #expect(priorities[.critical] == PriorityPolicy(mute: .override, maxAge: .seconds(7200)))
        #expect(priorities[.high] == PriorityPolicy(mute: .respect, maxAge: .seconds(90)))
        #expect(priorities[.normal] == PriorityPolicies.defaults[.normal])
        #expect(priorities[.low] == PriorityPolicy(mute: .respect, maxAge: .seconds(45)))
    }

    @Test func criticalRespectingAMuteIsRefusedWithItsLine() async {
        let found = await problems("priorities:\n  critical:\n    mute: respect\n")
        #expect(found.count == 1)
        #expect(found.first?.line == 3)
        #expect(found.first?.key == "priorities.critical.mute")
        #expect(found.first?.message.contains("critical announcements always override a mute") == true)
        #expect(found.first?.message.hasSuffix("remove this line") == true)
    }

    @Test func badPriorityValuesAreNamed() async {
        let found = await problems("""
            priorities:
              high:
                mute: sometimes
                max_age: soon
              normal:
                max_age: 8d
              low:
                max_age: 0s
                quiet: yes
              urgent:
                max_age: 5m
            """)
        #expect(found.map(\.key) == ["priorities.high.mute", "priorities.high.max_age", "priorities.normal.max_age",
                                     "priorities.low.max_age", "priorities.low.quiet", "priorities.urgent"])
        #expect(found.map(\.line) == [3, 4, 6, 8, 9, 10])
        #expect(found[1].message.contains("write it like 90s, 5m or 2h"))
        #expect(found[2].message.contains("use 1s to 7d"))
    }

    @Test func theRemovedLowMaxAgeKeyNamesItsReplacement() async {
        let found = await problems("queue:\n  low_max_age_s: 300\n")
        #expect(found.map(\.key) == ["queue.low_max_age_s"])
        #expect(found.first?.message.contains("priorities.low.max_age") == true)
    }

    @Test func badLeadInsAreNamedWithTheirLines() async {
        let found = await problems("""
            safeguard:
              lead_in_ms: 150
              lead_in_by_class:
                bluetooth: forever
                hdmi: 6s
                laser: 10ms
              lead_in_sinks:
                bluez_sink.00_1B_66.a2dp_sink: -5ms
            """)
        #expect(found.map(\.key) == ["safeguard.lead_in_ms", "safeguard.lead_in_by_class.bluetooth",
                                     "safeguard.lead_in_by_class.hdmi", "safeguard.lead_in_by_class.laser",
                                     "safeguard.lead_in_sinks.bluez_sink.00_1B_66.a2dp_sink"])
        #expect(found.map(\.line) == [2, 4, 5, 6, 8])
        #expect(found[0].message.contains("safeguard.lead_in_by_class"))
        #expect(found[2].message.contains("0s to 5s"))
    }

    @Test func aCommandTemplateThatPutsTextAmongOptionsIsRefused() async throws {
        let found = await problems("""
            speech:
              engine: command
              command: espeak-ng --stdout {text}
              voice: -w/tmp/x
              voices:
                nova: ../../x
            """)
        #expect(found.map(\.key) == ["speech.command", "speech.voice", "speech.voices.nova"])
        #expect(found.first?.line == 3)
        #expect(found.first?.message.contains("after a '--' argument") == true)
        let safe = try await load("speech:\n  engine: command\n  command: espeak-ng --stdout -- {text}\n")
        #expect(safe.speech.command == "espeak-ng --stdout -- {text}")
    }
}
