import Foundation
import HeraldCore
import Speech
import Testing

/// The clip cache and a voice pack built by `herald pack build` are their user's alone: folders
/// 0700, files 0600, whatever the umask of the process.
@Suite(.serialized) struct PrivateClipFilesTests {
    func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int, "\(path)")
    }

    @Test func cachedClipsArePrivate() async throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        let workspace = SpeechWorkspace()
        try await workspace.cache().store(tone(milliseconds: 200), engine: "e",
                                          request: SpeechRequest(text: "hello", language: "en", voice: "en-us", rate: 175, pitch: 50))
        let folder = workspace.folder + "/cache"
        #expect(try mode(folder) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(files.count == 1 && files[0].hasSuffix(".flac"), "\(files)")
        for file in files { #expect(try mode(folder + "/" + file) == 0o600, "\(file)") }
    }

    @Test func aBuiltVoicePackIsPrivate() async throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        let workspace = SpeechWorkspace()
        let directory = workspace.folder + "/packs/en"
        let pack = try await VoicePackBuilder(renderer: workspace.renderer()).build(language: "en", into: directory) { _, _ in }
        #expect(!pack.manifest.clips.isEmpty)
        #expect(try mode(workspace.folder + "/packs") == 0o700)
        #expect(try mode(directory) == 0o700)
        for file in try FileManager.default.contentsOfDirectory(atPath: directory) {
            #expect(try mode(directory + "/" + file) == 0o600, "\(file)")
        }
    }
}
