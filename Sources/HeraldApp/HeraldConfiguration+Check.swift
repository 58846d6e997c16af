import Foundation
import HeraldConfig
import HeraldCore
import Speech

extension HeraldConfiguration {
    /// Reads and validates `file`, or returns the defaults when `file` is nil.
    /// - Throws: `ConfigError` naming the file, line and key of every problem.
    public static func load(file: String?, stateDirectory: String) async throws -> HeraldConfiguration {
        try read(file: file, stateDirectory: stateDirectory)
    }

    /// `load` without suspending: the file's values (`draft`), then the checks that look at other
    /// files and at the speech engines (`ConfigDraft.check`). It runs where it is called, so a
    /// caller that must not hold up the cooperative pool runs it on a thread of its own (the
    /// daemon's reload does).
    /// - Throws: `ConfigError` naming the file, line and key of every problem.
    public static func read(file: String?, stateDirectory: String) throws -> HeraldConfiguration {
        var draft = try draft(file: file, stateDirectory: stateDirectory)
        draft.check()
        return try draft.finished()
    }
}

extension ConfigDraft {
    /// The checks `config check`, `serve`, a reload and every other command make once the file's
    /// values are read: the speech command's program on PATH, Piper's program, model and voices on
    /// disk (filling in the model and the aliases), and the language against the amount grammars.
    public mutating func check() {
        let speech = configuration.speech
        let command = speech.command
        if !command.trimmingCharacters(in: .whitespaces).isEmpty, let problem = Self.commandProblem(command, engine: speech.engine) {
            report("speech.command", problem)
        }
        configuration.speech.piper = checkedPiper(speech.piper, engine: speech.engine)
        if (try? AmountGrammars.grammar(for: speech.language)) == nil {
            report("speech.language", "'\(speech.language)' is not a language Herald can say amounts in; use one of \(AmountGrammars.covered.joined(separator: ", ")) (or another CLDR spells numbers in)")
        }
    }

    /// What is wrong with `speech.command`: its shape, a shell or interpreter that would run the
    /// text (by its name and by the name its links resolve to), and, when the command engine is
    /// chosen, a program that is not there (looked up on this process's PATH, as the engine will).
    static func commandProblem(_ command: String, engine: SpeechSettings.Engine) -> String? {
        if let problem = CommandSynthesizer.templateProblem(command) { return problem }
        let searchPath = ProcessInfo.processInfo.environment["PATH"]
        guard let problem = CommandSynthesizer.programProblem(command, searchPath: searchPath) else { return nil }
        // A program that is missing matters only to the engine that runs it; an unsafe one always.
        let name = String(command.split(separator: " ").first ?? "")
        let found = CommandProgram.locate(name, searchPath: searchPath).path != nil
        return engine == .command || found ? problem : nil
    }

    /// `speech.piper` against the files: the program and the default voice whenever the engine is
    /// `piper` or a path was given (the first installed voice when none was), and the aliases.
    private mutating func checkedPiper(_ given: PiperSettings, engine: SpeechSettings.Engine) -> PiperSettings {
        var piper = engine == .piper ? given.resolved() : given
        let install = "install a voice with scripts/install-voice.sh"
        if !givenPiperModel && engine == .piper && piper.model.isEmpty {
            report("speech.engine", "piper needs a voice and none is installed in \(piper.folder); \(install), or set speech.piper.model to the path of a .onnx")
        }
        if (engine == .piper || givenPiperModel) && !piper.model.isEmpty {
            do { _ = try PiperVoiceModel.read(modelPath: piper.model) } catch {
                report("speech.piper.model", "\(error)")
            }
        }
        if (engine == .piper || givenPiperPython) && !FileManager.default.isExecutableFile(atPath: piper.python) {
            report("speech.piper.python", "no program \(piper.python); \(install) (it makes that one), or give the Python that has piper-tts installed")
        }
        let installed = piperVoices.isEmpty ? [] : PiperVoiceModel.installed(in: piper.folder).map(\.name)
        for (alias, written, path) in piperVoices {
            if path.contains("/") ? (try? PiperVoiceModel.read(modelPath: path)) != nil
                : installed.contains(path) || path == (piper.model as NSString).lastPathComponent.replacing(".onnx", with: "") {
                piper.voices[alias.lowercased()] = path
            } else {
                let known = installed.isEmpty ? "none is installed" : "installed: \(installed.joined(separator: ", "))"
                report("speech.piper.voices.\(alias)", "'\(written)' is not a Piper voice (\(known)); give an installed voice's name or the path of a .onnx")
            }
        }
        return piper
    }
}
