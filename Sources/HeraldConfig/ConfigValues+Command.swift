import Foundation
import Speech

extension ConfigValues {
    /// What is wrong with `speech.command`: its shape, a shell or interpreter that would run the
    /// text (by its name and by the name its links resolve to), and, when the command engine is
    /// chosen, a program that is not there (looked up on this process's PATH, as the engine will).
    func commandProblem(_ command: String, engine: SpeechSettings.Engine) -> String? {
        if let problem = CommandSynthesizer.templateProblem(command) { return problem }
        let searchPath = ProcessInfo.processInfo.environment["PATH"]
        guard let problem = CommandSynthesizer.programProblem(command, searchPath: searchPath) else { return nil }
        // A program that is missing matters only to the engine that runs it; an unsafe one always.
        let name = String(command.split(separator: " ").first ?? "")
        let found = CommandProgram.locate(name, searchPath: searchPath).path != nil
        return engine == .command || found ? problem : nil
    }
}
