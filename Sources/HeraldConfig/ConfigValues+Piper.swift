import Foundation
import Speech

extension ConfigValues {
    /// `speech.piper`: the program, the default voice, threads, the hang timeout and the aliases.
    /// The program and the voice are checked whenever the engine is `piper` or a path was given,
    /// so `config check` says what is missing before the first payment.
    mutating func piper(defaults: PiperSettings, engine: SpeechSettings.Engine) -> PiperSettings {
        var piper = engine == .piper ? defaults.resolved() : defaults
        let install = "install a voice with scripts/install-voice.sh"
        let givenPython = string("speech.piper.python") ?? "", givenModel = string("speech.piper.model") ?? ""
        if !givenPython.isEmpty { piper.python = relativeToFile(givenPython) }
        if !givenModel.isEmpty {
            piper.model = relativeToFile(givenModel)
        } else if engine == .piper && piper.model.isEmpty {
            report("speech.engine", "piper needs a voice and none is installed in \(piper.folder); \(install), or set speech.piper.model to the path of a .onnx")
        }
        if (engine == .piper || !givenModel.isEmpty) && !piper.model.isEmpty {
            do { _ = try PiperVoiceModel.read(modelPath: piper.model) } catch {
                report("speech.piper.model", "\(error)")
            }
        }
        if (engine == .piper || !givenPython.isEmpty) && !FileManager.default.isExecutableFile(atPath: piper.python) {
            report("speech.piper.python", "no program \(piper.python); \(install) (it makes that one), or give the Python that has piper-tts installed")
        }
        piper.threads = integer("speech.piper.threads", range: 1...64) ?? piper.threads
        piper.timeoutMilliseconds = integer("speech.piper.timeout_ms", range: 500...120_000) ?? piper.timeoutMilliseconds
        let aliases = layout.mappings["speech.piper.voices"] ?? []
        let installed = aliases.isEmpty ? [] : PiperVoiceModel.installed(in: piper.folder).map(\.name)
        for (alias, _) in aliases {
            guard let voice = string("speech.piper.voices.\(alias)"), !voice.isEmpty else { continue }
            let path = voice.contains("/") ? relativeToFile(voice) : voice
            if path.contains("/") ? (try? PiperVoiceModel.read(modelPath: path)) != nil
                : installed.contains(path) || path == (piper.model as NSString).lastPathComponent.replacing(".onnx", with: "") {
                piper.voices[alias.lowercased()] = path
            } else {
                let known = installed.isEmpty ? "none is installed" : "installed: \(installed.joined(separator: ", "))"
                report("speech.piper.voices.\(alias)", "'\(voice)' is not a Piper voice (\(known)); give an installed voice's name or the path of a .onnx")
            }
        }
        return piper
    }
}
