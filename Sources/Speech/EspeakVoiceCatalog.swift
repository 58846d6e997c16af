import CEspeakNG
import Foundation

/// What the linked espeak-ng can speak: its languages, voices and voice variants, as
/// `espeak-ng --voices` lists them, lower-cased.
public struct EspeakVoiceCatalog: Sendable, Equatable {
    /// Every language a voice is for, with its dialects: `en`, `en-us`, `zh`, `cmn`...
    public var languages: Set<String>
    /// Voice names and voice file names: `en-us`, `cmn`, `afrikaans`...
    public var voices: Set<String>
    /// Variants that may follow a `+`: `f3`, `m7`, `klatt`, `alex`...
    public var variants: Set<String>

    public init(languages: Set<String>, voices: Set<String>, variants: Set<String>) {
        self.languages = languages
        self.voices = voices
        self.variants = variants
    }

    /// True when espeak-ng has a voice for `language` (`en`, `zh`, `de`, `en-gb`).
    public func knows(language: String) -> Bool {
        languages.contains(language.lowercased()) || voices.contains(language.lowercased())
    }

    /// True for a voice espeak-ng selects by that name: a voice or a language, optionally with a
    /// known variant (`en-us+f3`). espeak-ng itself ignores an unknown variant; Herald refuses
    /// it, so a typo is reported rather than spoken in the wrong voice.
    public func knows(voice: String) -> Bool {
        let parts = voice.lowercased().split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 2, let base = parts.first, voices.contains(base) || languages.contains(base) else { return false }
        return parts.count == 1 || variants.contains(parts[1])
    }

    /// A few languages to suggest in a message: the common ones first, if espeak-ng has them.
    public var suggestedLanguages: [String] {
        ["en", "zh", "de", "fr", "es", "it", "pt", "ja", "ru", "ar", "hi"].filter { languages.contains($0) }
    }
}

extension EspeakSynthesizer {
    /// espeak-ng's voice list, read once and kept.
    /// - Throws: `SpeechError.engineUnavailable` when espeak-ng cannot start (no data folder).
    public func catalog() throws -> EspeakVoiceCatalog {
        if let cachedCatalog { return cachedCatalog }
        _ = try initialize()
        var languages = Set<String>(), voices = Set<String>(), variants = Set<String>()
        func names(of voice: espeak_VOICE) -> [String] {
            [voice.name.map { String(cString: $0) }, voice.identifier.map { String(cString: $0) }]
                .compactMap { $0?.lowercased().split(separator: "/").last.map(String.init) }
        }
        Self.forEachVoice(nil) { voice in
            languages.formUnion(Self.languageNames(voice.languages))
            voices.formUnion(names(of: voice))
        }
        var spec = espeak_VOICE()
        "variant".withCString { variant in
            spec.languages = variant
            Self.forEachVoice(&spec) { variants.formUnion(names(of: $0)) }
        }
        let catalog = EspeakVoiceCatalog(languages: languages, voices: voices, variants: variants)
        cachedCatalog = catalog
        return catalog
    }

    /// Calls `body` with each voice `espeak_ListVoices` returns. The array and its strings are
    /// espeak-ng's, freed by its next call: nothing of them may outlive `body`.
    private static func forEachVoice(_ spec: UnsafeMutablePointer<espeak_VOICE>?, _ body: (espeak_VOICE) -> Void) {
        guard let list = espeak_ListVoices(spec) else { return }
        var index = 0
        while let voice = list[index] {
            body(voice.pointee)
            index += 1
        }
    }

    /// espeak-ng's packed language list: a priority byte, a NUL-terminated name, ..., then a 0 byte.
    private static func languageNames(_ packed: UnsafePointer<CChar>?) -> [String] {
        guard var cursor = packed else { return [] }
        var names: [String] = []
        while cursor.pointee != 0 {  // The priority byte; 0 ends the list.
            cursor += 1
            let name = String(cString: cursor)
            names.append(name.lowercased())
            cursor += strlen(cursor) + 1
        }
        return names
    }
}
