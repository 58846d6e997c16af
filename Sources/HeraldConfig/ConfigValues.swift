import Foundation
import HeraldCore

/// Reads each key from the file's one parse (`YAMLLayout`), parses and range-checks it, and
/// collects problems with the line the key sits on.
struct ConfigValues {
    let layout: YAMLLayout
    let file: String
    var problems: [ConfigProblem] = []
    /// What the speech checks need beyond the values (`ConfigDraft`).
    var givenPiperPython = false, givenPiperModel = false
    var piperVoices: [(alias: String, written: String, voice: String)] = []

    init(layout: YAMLLayout, file: String) {
        self.layout = layout
        self.file = file
    }

    mutating func configuration(defaults: HeraldConfiguration) -> HeraldConfiguration {
        var result = defaults
        result.file = file
        var safeguard = defaults.safeguard
        let sink = string("sink")
        safeguard.sinkName = (sink?.isEmpty ?? true) ? nil : sink
        // Volumes: PulseAudio percentages. 150% is the most pavucontrol offers; beyond it distorts.
        safeguard.minVolume = percent("safeguard.min_volume", range: 0...150).map(Volume.init(percent:)) ?? safeguard.minVolume
        safeguard.targetVolume = percent("safeguard.target_volume", range: 1...150).map(Volume.init(percent:)) ?? safeguard.targetVolume
        safeguard.maxVolume = percent("safeguard.max_volume", range: 1...150).map(Volume.init(percent:)) ?? safeguard.maxVolume
        safeguard.duckLevel = percent("safeguard.duck_level", range: 0...100).map { $0 / 100 } ?? safeguard.duckLevel
        safeguard.rampMilliseconds = milliseconds("safeguard.ramp_ms") ?? safeguard.rampMilliseconds
        readLeadIns(into: &safeguard)
        if let leadIn = string("safeguard.lead_in"), !leadIn.isEmpty {
            if let policy = LeadInPolicy(rawValue: leadIn.lowercased()) {
                safeguard.leadIn = policy
            } else {
                report("safeguard.lead_in", "'\(leadIn)' is not a lead-in policy; use auto, always or never")
            }
        }
        if let mute = string("safeguard.mute") {
            if let policy = MutePolicy(rawValue: mute.lowercased()) {
                safeguard.mutePolicy = policy
            } else {
                report("safeguard.mute", "'\(mute)' is not a mute policy; use override or respect")
            }
        }
        if safeguard.minVolume > safeguard.targetVolume {
            report("safeguard.min_volume", "\(safeguard.minVolume) is above target_volume \(safeguard.targetVolume); a raise would lower the sink. Make min_volume <= target_volume")
        }
        if safeguard.targetVolume > safeguard.maxVolume {
            report("safeguard.target_volume", "\(safeguard.targetVolume) is above max_volume \(safeguard.maxVolume); make target_volume <= max_volume")
        }
        result.safeguard = safeguard
        result.databasePath = databasePath() ?? result.databasePath
        if let sounds = string("sounds"), !sounds.isEmpty { result.soundsDirectory = relativeToFile(sounds) }
        result.speech = speech(defaults: defaults.speech, soundsDirectory: result.soundsDirectory)
        readCache(into: &result.cache)
        readAPI(into: &result.api)
        result.mqtt = mqtt()
        result.fleet = fleet()
        result.secretFiles = secretFiles(result)
        if layout.listItems["audio_url.allow_hosts"] != nil {
            result.audioURL.allowHosts = (layout.listItems["audio_url.allow_hosts"] ?? [])
                .map { $0.lowercased() }.filter { !$0.isEmpty }
        }
        if let size = string("audio_url.max_bytes"), !size.isEmpty {
            if let bytes = Self.byteCount(size) { result.audioURL.maxBytes = bytes } else {
                report("audio_url.max_bytes", "'\(size)' is not a size; write it like 5MB")
            }
        }
        result.audioURL.connectTimeoutMilliseconds = integer("audio_url.connect_timeout_ms", range: 100...60_000)
            ?? result.audioURL.connectTimeoutMilliseconds
        result.audioURL.timeoutMilliseconds = integer("audio_url.timeout_ms", range: 100...300_000) ?? result.audioURL.timeoutMilliseconds
        result.queue.queueLimit = integer("queue.limit", range: 1...100_000) ?? result.queue.queueLimit
        result.queue.coalescePaymentsOver = integer("queue.coalesce_payments_over", range: 1...1000) ?? result.queue.coalescePaymentsOver
        result.priorities = priorities(defaults: defaults.priorities)
        result.configuredRooms = readRooms(house: result.safeguard)
        // After the rooms: a reminder's rooms are checked against them.
        readReminders(into: &result.reminders, soundsDirectory: result.soundsDirectory, rooms: result.rooms)
        result.calendars = readCalendars(rooms: result.rooms)
        result.buttons = readButtons(rooms: result.rooms, mqtt: result.mqtt)
        result.mqtt?.buttonTopics = result.buttons.compactMap(\.mqttTopic)
        result.quietHours = quietHours(defaults: defaults.quietHours, safeguard: result.safeguard)
        result.queue.requestIDRetentionDays = integer("queue.request_id_retention_days", range: 1...3650) ?? result.queue.requestIDRetentionDays
        result.history.retentionDays = integer("history.retention_days", range: 0...36_500) ?? result.history.retentionDays
        if result.history.retentionDays > 0 && result.history.retentionDays < result.queue.requestIDRetentionDays {
            // A pruned row takes its request id with it: a till's retry would play again.
            report("history.retention_days",
                   "\(result.history.retentionDays) days is shorter than queue.request_id_retention_days (\(result.queue.requestIDRetentionDays)); make it at least \(result.queue.requestIDRetentionDays), or 0 to keep every row")
        }
        readAudioHistory(into: &result.history)
        for priority in Priority.allCases {
            guard let name = string("chimes.\(priority.rawValue)") ?? HeraldConfiguration.defaultChimes[priority] else {
                result.chimes[priority] = nil
                continue
            }
            if name.isEmpty || name.lowercased() == "none" {
                result.chimes[priority] = nil
                continue
            }
            let key = "chimes.\(priority.rawValue)"
            let path = HeraldConfiguration.chimePath(name, in: result.soundsDirectory)
            if FileManager.default.fileExists(atPath: path) {
                result.chimes[priority] = path
            } else if layout.lines[key] == nil && layout.lines["sounds"] != nil {
                // The default chime is missing because `sounds` points elsewhere: that line is the one to fix.
                report("sounds", "no chime file \(path) for \(priority.rawValue) announcements; point sounds at a folder holding chimes/, or set \(key): none")
            } else {
                report(key, "no chime file \(path); use a name from Sounds/chimes (alert, ding, bell) or a path")
            }
        }
        return result
    }

    func relativeToFile(_ path: String) -> String {
        path.hasPrefix("/") ? path : ((file as NSString).deletingLastPathComponent as NSString).appendingPathComponent(path)
    }

    private mutating func speech(defaults: SpeechSettings, soundsDirectory: String) -> SpeechSettings {
        var speech = defaults
        speech.packsDirectory = (soundsDirectory as NSString).appendingPathComponent("voices")
        if let engine = string("speech.engine"), !engine.isEmpty {
            if let parsed = SpeechSettings.Engine(rawValue: engine.lowercased()) {
                speech.engine = parsed
            } else {
                report("speech.engine", "'\(engine)' is not an engine; use espeak-ng, piper or command")
            }
        }
        // Whether the program is there and safe is checked with the speech engines (`ConfigDraft`).
        let command = string("speech.command") ?? speech.command
        speech.command = command
        if speech.engine == .command && command.trimmingCharacters(in: .whitespaces).isEmpty {
            report("speech.engine", "the command engine needs speech.command, e.g. \"espeak-ng --stdout -v {voice}\"")
        }
        speech.piper = piper(defaults: speech.piper)
        speech.commandTimeoutMilliseconds = integer("speech.command_timeout_ms", range: 100...120_000) ?? speech.commandTimeoutMilliseconds
        // Whether Herald speaks it is checked with the amount grammars (`ConfigDraft`).
        if let language = string("speech.language"), !language.isEmpty { speech.language = language }
        if let voice = string("speech.voice") {
            if voice.isEmpty || SpeechNames.isVoiceName(voice) { speech.voice = voice } else {
                report("speech.voice", "'\(voice)' is not a voice name (letters, digits and _ . + -, starting with a letter or digit); write it like en-us+f3, or leave it empty")
            }
        }
        speech.rate = integer("speech.rate", range: 80...450) ?? speech.rate
        speech.pitch = integer("speech.pitch", range: 0...100) ?? speech.pitch
        if let code = string("speech.currency"), !code.isEmpty {
            if let currency = Currency.named(code) {
                speech.currency = currency
            } else {
                report("speech.currency", "'\(code)' is not an ISO 4217 currency code; use one such as \(Currency.all.map(\.code).joined(separator: ", ")), MXN or INR")
            }
        }
        if let packs = string("speech.packs"), !packs.isEmpty { speech.packsDirectory = relativeToFile(packs) }
        for (alias, _) in layout.mappings["speech.voices"] ?? [] {
            guard let voice = string("speech.voices.\(alias)"), !voice.isEmpty else { continue }
            if SpeechNames.isVoiceName(voice) { speech.voiceAliases[alias.lowercased()] = voice } else {
                report("speech.voices.\(alias)", "'\(voice)' is not a voice name (letters, digits and _ . + -, starting with a letter or digit); write it like en-us+f3")
            }
        }
        readPhrases(into: &speech)
        return speech
    }

    /// `speech.phrases.<lang>`: the payment sentence alone, or a section naming any of the phrases
    /// (`payment`, `summary`, `quiet`, `test`).
    private mutating func readPhrases(into speech: inout SpeechSettings) {
        for (language, _) in layout.mappings["speech.phrases"] ?? [] {
            let key = "speech.phrases.\(language)"
            let tag = language.replacingOccurrences(of: "_", with: "-")
            guard SpeechNames.isLanguageTag(tag) else {
                report(key, "'\(language)' is not a language tag; write it like es, pt-BR or hi")
                continue
            }
            var written: [(PhraseKey?, name: String)] = []
            if let section = layout.mappings[key] {
                guard !section.isEmpty else {
                    report(key, "an empty section; name at least one of \(PhraseKey.allCases.map(\.rawValue).joined(separator: ", ")), or remove it")
                    continue
                }
                written = section.map { (PhraseKey(rawValue: $0.0), "\(key).\($0.0)") }
            } else {
                written = [(.payment, key)]
            }
            var phrases: [PhraseKey: String] = [:]
            for (phrase, name) in written {
                guard let phrase else {
                    report(name, "unknown phrase; name one of \(PhraseKey.allCases.map(\.rawValue).joined(separator: ", "))")
                    continue
                }
                guard let template = string(name) else { continue }
                if let problem = phrase.problem(in: template) { report(name, problem) } else { phrases[phrase] = template }
            }
            if !phrases.isEmpty { speech.phraseOverrides[SpeechNames.phraseTag(tag), default: [:]].merge(phrases) { _, new in new } }
        }
    }

    private mutating func readCache(into cache: inout HeraldConfiguration.CacheSettings) {
        if let path = string("cache.path"), !path.isEmpty { cache.directory = relativeToFile(path) }
        if let size = string("cache.max_bytes"), !size.isEmpty {
            if let bytes = Self.byteCount(size) {
                cache.maxBytes = bytes
            } else {
                report("cache.max_bytes", "'\(size)' is not a size; write it like 50MB, 500KB or 1GB")
            }
        }
        if layout.listItems["cache.warm"] != nil {
            cache.warm = (layout.listItems["cache.warm"] ?? []).filter { !$0.isEmpty }
        }
    }

    /// `50MB`, `500 KB`, `1GB` or plain bytes.
    static func byteCount(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        let units: [(String, Int64)] = [("GB", 1_000_000_000), ("MB", 1_000_000), ("KB", 1_000), ("B", 1)]
        for (suffix, factor) in units where trimmed.hasSuffix(suffix) {
            let number = trimmed.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)
            guard let value = Int64(number), value > 0 else { return nil }
            return value * factor
        }
        return Int64(trimmed).flatMap { $0 > 0 ? $0 : nil }
    }

    mutating func integer(_ key: String, range: ClosedRange<Int>) -> Int? {
        guard let text = string(key)?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard let value = Int(text), range.contains(value) else {
            report(key, "'\(text)' is not a whole number from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        return value
    }

    mutating func report(_ key: String, _ message: String) {
        problems.append(ConfigProblem(file: file, line: layout.lines[key], key: key, message: message))
    }

    mutating func string(_ key: String) -> String? {
        guard layout.lines[key] != nil else { return nil }
        let value = layout.values[key]
        return value == "null" || value == "~" ? "" : value
    }

    /// `70%`, `70` or `70.5%`, within `range`.
    private mutating func percent(_ key: String, range: ClosedRange<Double>) -> Double? {
        guard let text = string(key)?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        return percent(text, key: key, range: range)
    }

    /// `text` as a percentage within `range`; nil after reporting it under `key`.
    mutating func percent(_ text: String, key: String, range: ClosedRange<Double>) -> Double? {
        let digits = text.hasSuffix("%") ? String(text.dropLast()).trimmingCharacters(in: .whitespaces) : text
        guard let value = Double(digits), value.isFinite else {
            report(key, "'\(text)' is not a percentage; write it like 70%")
            return nil
        }
        guard range.contains(value) else {
            report(key, "\(text) is out of range; use \(Int(range.lowerBound))% to \(Int(range.upperBound))%")
            return nil
        }
        return value
    }

    private mutating func milliseconds(_ key: String) -> Int? {
        guard let text = string(key)?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard let value = Int(text.hasSuffix("ms") ? String(text.dropLast(2)) : text), (0...5000).contains(value) else {
            report(key, "'\(text)' is not a duration from 0 to 5000 milliseconds")
            return nil
        }
        return value
    }
}
