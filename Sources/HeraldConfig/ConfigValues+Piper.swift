import Foundation
import HeraldCore

extension ConfigValues {
    /// `speech.piper`: the program, the default voice, threads, the hang timeout and the aliases.
    /// The program, the voice and the aliases are checked against the files with the speech
    /// engines (`ConfigDraft`), so `config check` says what is missing before the first payment.
    mutating func piper(defaults: PiperSettings) -> PiperSettings {
        var piper = defaults
        let givenPython = string("speech.piper.python") ?? "", givenModel = string("speech.piper.model") ?? ""
        givenPiperPython = !givenPython.isEmpty
        givenPiperModel = !givenModel.isEmpty
        if !givenPython.isEmpty { piper.python = relativeToFile(givenPython) }
        if !givenModel.isEmpty { piper.model = relativeToFile(givenModel) }
        piper.threads = integer("speech.piper.threads", range: 1...64) ?? piper.threads
        piper.timeoutMilliseconds = integer("speech.piper.timeout_ms", range: 500...120_000) ?? piper.timeoutMilliseconds
        for (alias, _) in layout.mappings["speech.piper.voices"] ?? [] {
            guard let voice = string("speech.piper.voices.\(alias)"), !voice.isEmpty else { continue }
            piperVoices.append((alias, voice, voice.contains("/") ? relativeToFile(voice) : voice))
        }
        return piper
    }
}
