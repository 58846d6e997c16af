import Foundation
import HeraldConfig
import Testing

/// `herald config check` refuses a command template that would run announcement text as code, and
/// names a program that is not there.
@Suite struct CommandTemplateConfigTests {
    func problems(_ command: String, engine: String = "command") async throws -> [ConfigProblem] {
        let folder = try ConfigFolder()
        return try await folder.problems(.utf8("sink: a\nspeech:\n  engine: \(engine)\n  command: \"\(folder.expand(command))\"\n"))
    }

    @Test(arguments: ["sh -c -- {text}", "bash -c {voice}", "/bin/sh -c -- {text}", "env bash -c -- {text}",
                      "python3 -c -- {text}", "/usr/bin/python3 -- {text}", "sh"])
    func aShellOrInterpreterHandedTheTextIsRefused(command: String) async throws {
        let found = try await problems(command)
        #expect(found.count == 1 && found.first?.key == "speech.command" && found.first?.line == 4, "\(found)")
        #expect(found.first?.message.contains("standard input") == true, "\(found)")
    }

    /// Whatever the engine: the template would be refused when the engine is switched.
    @Test func anUnsafeTemplateIsRefusedWithAnotherEngineToo() async throws {
        #expect(try await problems("sh -c -- {text}", engine: "espeak-ng").map(\.key) == ["speech.command"])
    }

    @Test func aLinkToAShellIsRefusedByWhatItResolvesTo() async throws {
        let folder = try ConfigFolder()
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/tts", withDestinationPath: "/bin/sh")
        let found = try await folder.problems(.utf8(folder.expand("speech:\n  engine: command\n  command: $DIR/tts -c -- {text}\n")))
        #expect(found.map(\.key) == ["speech.command"], "\(found)")
        #expect(found.first?.message.contains("would run the text of every announcement as code") == true, "\(found)")
    }

    @Test func aMissingProgramIsNamed() async throws {
        let bare = try await problems("no-such-tts-program --stdout")
        #expect(bare.first?.message.hasPrefix("no program 'no-such-tts-program' on PATH (") == true, "\(bare)")
        let path = try await problems("/nonexistent/tts --stdout")
        #expect(path.first?.message == "no program /nonexistent/tts (no executable file there); install it, or correct the path")
        // With another engine the program is not run, so it need not be there.
        #expect(try await problems("/nonexistent/tts --stdout", engine: "espeak-ng").isEmpty)
    }

    @Test func anInstalledProgramPasses() async throws {
        let folder = try ConfigFolder()
        try Data("#!/bin/sh\n".utf8).write(to: URL(fileURLWithPath: folder.path + "/tts"))
        chmod(folder.path + "/tts", 0o755)
        let configuration = try await folder.load(.utf8(folder.expand("speech:\n  engine: command\n  command: $DIR/tts --stdout -- {text}\n")))
        #expect(configuration.speech.command == folder.expand("$DIR/tts --stdout -- {text}"))
    }
}
