import Foundation
import HeraldCore
import Speech
import Testing

/// No configured program is handed text in a way a shell or interpreter could run: by its name,
/// by the name its links resolve to, or through a program that runs another.
@Suite struct CommandProgramTests {
    @Test(arguments: [
        "sh -c -- {text}", "bash -c {voice}", "dash -c -- {text}", "zsh -c {text}", "/bin/sh -c -- {text}",
        "env sh -c -- {text}", "env espeak-ng --stdout", "xargs espeak-ng --stdout", "busybox sh -c -- {text}",
        "python3 -c -- {text}", "python3.11 -- {text}", "python -c {voice}", "perl -e -- {text}", "perl5.36.0 -- {text}",
        "ruby -e {text}", "node -e -- {text}", "nodejs -- {text}", "php -r -- {text}", "lua5.4 -- {text}",
        "tclsh8.6 -- {text}", "awk -- {text}", "gawk -- {text}", "sed -- {text}", "osascript -- {text}",
        "fish -c {lang}", "sudo espeak-ng --stdout", "timeout 5 espeak-ng --stdout",
        // Text on standard input, and no script named: the text is the program.
        "sh", "bash -s", "python3", "python3 -", "perl -w", "sh -e", "sh -o posix",
    ])
    func aShellOrInterpreterThatWouldRunTheTextIsRefused(template: String) {
        let problem = CommandSynthesizer.templateProblem(template)
        #expect(problem != nil, "\(template) passed")
        #expect(problem?.contains("code") == true || problem?.contains("runs another program") == true, "\(problem ?? "")")
        #expect(problem?.contains("standard input") == true, "it says what to do instead: \(problem ?? "")")
    }

    @Test(arguments: [
        "espeak-ng --stdout -v {voice}", "espeak-ng --stdout -- {text}", "piper --model {voice}.onnx --output_file -",
        "python3 -m piper --model /opt/voice.onnx --output_file -", "bash /opt/tts.sh", "python3 /opt/tts.py --rate {rate}",
        "sh -c espeak-ng", "awk -f /opt/x.awk",
    ])
    func anOrdinaryProgramOrANamedScriptPasses(template: String) {
        #expect(CommandSynthesizer.templateProblem(template) == nil, "\(CommandSynthesizer.templateProblem(template) ?? "")")
    }

    /// A folder holding `name` as a link to `target`, for PATH or a path in the template.
    func folder(linking name: String, to target: String) throws -> String {
        let folder = NSTemporaryDirectory() + "herald-program-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: "\(folder)/\(name)", withDestinationPath: target)
        return folder
    }

    @Test func aLinkToAShellUnderAnotherNameIsRefused() throws {
        let shell = try #require(["/bin/sh", "/usr/bin/dash", "/bin/bash"].first { FileManager.default.isExecutableFile(atPath: $0) })
        let folder = try folder(linking: "tts", to: shell)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(CommandSynthesizer.templateProblem("\(folder)/tts -c -- {text}") == nil, "the name alone looks harmless")
        let byPath = try #require(CommandSynthesizer.programProblem("\(folder)/tts -c -- {text}", searchPath: "/usr/bin"))
        #expect(byPath.contains("is a shell or interpreter") && byPath.contains("(\(realpath(shell))"), "\(byPath)")
        let byName = try #require(CommandSynthesizer.programProblem("tts -c -- {text}", searchPath: folder))
        #expect(byName.contains("would run the text of every announcement as code"), "\(byName)")
    }

    @Test func aLinkToPythonUnderAnotherNameIsRefused() throws {
        let python = try #require(["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) })
        let folder = try folder(linking: "say-it", to: python)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(CommandSynthesizer.programProblem("say-it -c -- {text}", searchPath: folder) != nil)
        #expect(CommandSynthesizer.programProblem("say-it", searchPath: folder)?.contains("standard input as code") == true)
    }

    @Test func aMissingProgramIsNamed() {
        #expect(CommandSynthesizer.programProblem("no-such-tts-program --stdout", searchPath: "/usr/bin:/bin")
            == "no program 'no-such-tts-program' on PATH (/usr/bin:/bin); install it, or give its absolute path")
        #expect(CommandSynthesizer.programProblem("/nonexistent/tts --stdout", searchPath: "/usr/bin")
            == "no program /nonexistent/tts (no executable file there); install it, or correct the path")
        let plain = NSTemporaryDirectory() + "herald-plain-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: plain, contents: Data("x".utf8), attributes: [.posixPermissions: 0o644])
        defer { try? FileManager.default.removeItem(atPath: plain) }
        #expect(CommandSynthesizer.programProblem("\(plain) --stdout", searchPath: "/usr/bin") != nil, "not executable")
        #expect(CommandSynthesizer.programProblem("bin/tts", searchPath: "/usr/bin")?.contains("relative path") == true)
    }

    @Test func anInstalledProgramIsFound() throws {
        let folder = NSTemporaryDirectory() + "herald-program-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("#!/bin/sh\n".utf8).write(to: URL(fileURLWithPath: "\(folder)/tts"))
        chmod("\(folder)/tts", 0o755)
        #expect(CommandSynthesizer.programProblem("tts --stdout -- {text}", searchPath: "/nonexistent:\(folder)") == nil)
        #expect(CommandSynthesizer.programProblem("\(folder)/tts --stdout", searchPath: nil) == nil)
    }

    /// The engine refuses at run time what the config check refuses: the file under a name may
    /// change after the check.
    @Test func theEngineRefusesAShellAtRunTime() async throws {
        let shell = try #require(["/bin/sh", "/usr/bin/dash"].first { FileManager.default.isExecutableFile(atPath: $0) })
        let folder = try folder(linking: "tts", to: shell)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let trap = "\(folder)/pwned"
        let engine = CommandSynthesizer(command: "tts -c -- {text}", timeout: .seconds(5), searchPath: folder)
        let request = SpeechRequest(text: "touch \(trap)", language: "en", voice: "en-us", rate: 175, pitch: 50)
        await #expect(throws: SpeechError.self) { _ = try await engine.render(request) }
        #expect(!FileManager.default.fileExists(atPath: trap))
    }
}

private func realpath(_ path: String) -> String {
    guard let resolved = Glibc.realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
}
