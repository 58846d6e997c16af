import Foundation
import HeraldApp
import HeraldConfig
import Testing

/// What a config path that is not a readable, reasonably sized file says, before any parsing.
@Suite struct ConfigFileAccessTests {
    func problems(_ path: String, in folder: ConfigFolder) async throws -> [ConfigProblem] {
        do {
            _ = try await HeraldConfiguration.load(file: path, stateDirectory: folder.path + "/state")
            return []
        } catch let error as ConfigError {
            return error.problems
        }
    }

    @Test func aFileOverOneMebibyteIsRefusedBeforeItIsRead() async throws {
        let folder = try ConfigFolder()
        // 64 MiB of nothing (a sparse file): read whole, it would be called a binary file after
        // a long read; refused by its size, it takes no time.
        let handle = try #require(FileHandle(forWritingAtPath: folder.path + "/afile"))
        try handle.truncate(atOffset: 64 << 20)
        try handle.close()
        let started = ContinuousClock.now
        let found = try await problems(folder.path + "/afile", in: folder)
        #expect(ContinuousClock.now - started < .milliseconds(500))
        #expect(found.count == 1)
        #expect(found.first?.line == nil)
        #expect(found.first?.description == "\(folder.path)/afile: too large (67108864 bytes; a config file is at most 1 MiB); is this the right file? Config/herald.yaml is about 10 KB")
    }

    @Test func aFileOfExactlyOneMebibyteIsRead() async throws {
        let folder = try ConfigFolder()
        let line = "# " + String(repeating: "x", count: 1021) + "\n"  // 1024 bytes
        var text = String(repeating: line, count: 1023)
        text += "sink: kitchen\n"
        text += "#" + String(repeating: "y", count: (1 << 20) - text.utf8.count - 2) + "\n"
        #expect(text.utf8.count == 1 << 20)
        let configuration = try await folder.load(.utf8(text))
        #expect(configuration.safeguard.sinkName == "kitchen")
        let found = try await folder.problems(.utf8(text + "#"))
        #expect(found.first?.message.hasPrefix("too large (1048577 bytes; a config file is at most 1 MiB)") == true, "\(found)")
    }

    @Test func aSymbolicLinkLoopIsNamed() async throws {
        let folder = try ConfigFolder()
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/a.yaml", withDestinationPath: folder.path + "/b.yaml")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/b.yaml", withDestinationPath: folder.path + "/a.yaml")
        let found = try await problems(folder.path + "/a.yaml", in: folder)
        #expect(found.map(\.description) == [
            "\(folder.path)/a.yaml: a symbolic link loop (a link that leads back to itself); point it at a real file",
        ])
    }

    @Test func aLinkToNothingSaysWhereItPoints() async throws {
        let folder = try ConfigFolder()
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/a.yaml", withDestinationPath: folder.path + "/gone.yaml")
        let found = try await problems(folder.path + "/a.yaml", in: folder)
        #expect(found.first?.message.hasPrefix("a symbolic link to \(folder.path)/gone.yaml, which does not exist") == true, "\(found)")
    }

    @Test func aLinkToAFileIsFollowed() async throws {
        let folder = try ConfigFolder()
        try Data("sink: hall\n".utf8).write(to: URL(fileURLWithPath: folder.configPath))
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/link.yaml", withDestinationPath: folder.configPath)
        let configuration = try await HeraldConfiguration.load(file: folder.path + "/link.yaml", stateDirectory: folder.path + "/state")
        #expect(configuration.safeguard.sinkName == "hall")
    }

    @Test func aFolderAMissingFileAndAPathThroughAFileAreNamed() async throws {
        let folder = try ConfigFolder()
        #expect(try await problems(folder.path + "/afolder", in: folder).first?.message
            == "is a folder, not a config file; give the path of the YAML file, such as \(folder.path)/afolder/herald.yaml")
        #expect(try await problems(folder.path + "/nothing.yaml", in: folder).first?.message
            == "no such config file; check the path, or copy Config/herald.yaml there")
        #expect(try await problems(folder.path + "/afile/herald.yaml", in: folder).first?.message
            == "a part of the path is a file, not a folder; check the path")
    }

    /// Opening a named pipe for reading waits for a writer; the check must not.
    @Test(.timeLimit(.minutes(1))) func aNamedPipeIsRefusedWithoutWaiting() async throws {
        let folder = try ConfigFolder()
        #expect(mkfifo(folder.path + "/pipe", 0o600) == 0)
        #expect(try await problems(folder.path + "/pipe", in: folder).first?.message
            == "is not a regular file (a device, pipe or socket); give the path of the YAML config file")
    }

    /// Root reads every file, so this can only be shown as another user.
    @Test(.enabled(if: getuid() != 0, "root can read a file without read permission"))
    func anUnreadableFileSaysSo() async throws {
        let folder = try ConfigFolder()
        try Data("sink: a\n".utf8).write(to: URL(fileURLWithPath: folder.configPath))
        chmod(folder.configPath, 0)
        #expect(try await problems(folder.configPath, in: folder).first?.message.hasPrefix("cannot be read: permission denied") == true)
    }
}
