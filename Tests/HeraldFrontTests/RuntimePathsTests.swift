import Foundation
import RuntimePaths
import Testing

/// The runtime folder is trusted only when it is the user's own, private directory: in /tmp
/// another user could make it first and leave a socket there that answers "played".
@Suite struct RuntimePathsTests {
    @Test func onlyTheUsersOwnPrivateDirectoryIsTrusted() throws {
        let base = NSTemporaryDirectory() + "herald-runtime-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: base) }
        let folder = base + "/herald"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                attributes: nil)
        chmod(folder, 0o700)
        #expect(RuntimePaths.isPrivate(folder, userID: getuid()))
        #expect(!RuntimePaths.isPrivate(folder, userID: getuid() + 1), "another user's folder")
        let link = base + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: folder)
        #expect(!RuntimePaths.isPrivate(link, userID: getuid()), "a symlink, even to a private folder")
        let file = base + "/file"
        #expect(FileManager.default.createFile(atPath: file, contents: Data(), attributes: [.posixPermissions: 0o600]))
        #expect(!RuntimePaths.isPrivate(file, userID: getuid()), "not a directory")
        #expect(!RuntimePaths.isPrivate(base + "/missing", userID: getuid()))
        for mode in [0o750, 0o705, 0o777] {
            chmod(folder, mode_t(mode))
            #expect(!RuntimePaths.isPrivate(folder, userID: getuid()), "mode \(String(mode, radix: 8))")
        }
    }
}
