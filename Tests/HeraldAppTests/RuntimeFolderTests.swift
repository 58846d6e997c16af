import Foundation
import HeraldApp
import HeraldConfig
import Logging
import Testing

/// The safeguard lock is one per user and sound server (DESIGN.md rule 10), not per database.
@Suite struct LockPathTests {
    let folder = NSTemporaryDirectory() + "herald-lock-\(UUID().uuidString)"

    func context(database: String) throws -> HeraldContext {
        var configuration = HeraldConfiguration.defaults(stateDirectory: folder)
        configuration.databasePath = database
        return try HeraldContext(configuration: configuration, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
    }

    @Test func twoDatabasesOnOneServerShareTheLock() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try context(database: folder + "/a/herald.sqlite")
        let second = try context(database: folder + "/b/other.sqlite")
        let path = try first.lockPath
        #expect(try second.lockPath == path)
        #expect(!path.hasPrefix(folder), "not beside either database: \(path)")
        let attributes = try FileManager.default.attributesOfItem(atPath: (path as NSString).deletingLastPathComponent)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        #expect((attributes[.ownerAccountID] as? Int) == Int(getuid()))
    }

    @Test func anotherServerGetsAnotherLock() throws {
        // A runtime directory that exists: one that does not is not used (see below).
        try FileManager.default.createDirectory(atPath: folder + "/run/user/1000", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let runtime = ["XDG_RUNTIME_DIR": folder + "/run/user/1000"]
        let local = RuntimeFolder.safeguardLock(environment: runtime, userID: 1000)
        let server = RuntimeFolder.safeguardLock(environment: runtime.merging(["PULSE_SERVER": "unix:/tmp/p1/native"]) { $1 }, userID: 1000)
        let sameServer = RuntimeFolder.safeguardLock(environment: runtime.merging(["PULSE_SERVER": "/tmp/p1/native"]) { $1 }, userID: 1000)
        let other = RuntimeFolder.safeguardLock(environment: runtime.merging(["PULSE_SERVER": "unix:/tmp/p2/native"]) { $1 }, userID: 1000)
        #expect(local.hasPrefix(folder + "/run/user/1000/herald/safeguard-") && local.hasSuffix(".lock"))
        #expect(server != local && other != server)
        #expect(sameServer == server, "unix:PATH and PATH are one server")
        let defaultSocket = runtime.merging(["PULSE_SERVER": "unix:\(folder)/run/user/1000/pulse/native"]) { $1 }
        #expect(RuntimeFolder.safeguardLock(environment: defaultSocket, userID: 1000) == local, "the default socket named is the default server")
    }

    @Test func withoutARuntimeDirectoryTheLockIsInAPerUserTmpFolder() {
        #expect(RuntimeFolder.safeguardLock(environment: [:], userID: 1234).hasPrefix("/tmp/herald-1234/safeguard-"))
        #expect(RuntimeFolder.safeguardLock(environment: ["XDG_RUNTIME_DIR": ""], userID: 7).hasPrefix("/tmp/herald-7/"))
        // A stale variable (su, sudo -E) naming a folder that is not there: the tmp folder, not a failure.
        #expect(RuntimeFolder.safeguardLock(environment: ["XDG_RUNTIME_DIR": folder + "/gone"], userID: 7).hasPrefix("/tmp/herald-7/"))
        #expect(RuntimeFolder.apiSocket(port: 7370, environment: ["XDG_RUNTIME_DIR": folder + "/gone"], userID: 7)
                == "/tmp/herald-7/api-7370.sock")
        #expect(RuntimeFolder.safeguardLock(environment: [:], userID: 1) == RuntimeFolder.safeguardLock(environment: [:], userID: 1),
                "stable: the same address always names the same file")
    }

    @Test func theFolderIsCreatedPrivateAndALooseOneIsClosed() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let fresh = folder + "/fresh"
        try RuntimeFolder.prepare(fresh, userID: getuid())
        #expect((try FileManager.default.attributesOfItem(atPath: fresh)[.posixPermissions] as? Int) == 0o700)
        let loose = folder + "/loose"
        try FileManager.default.createDirectory(atPath: loose, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o777])
        try RuntimeFolder.prepare(loose, userID: getuid())
        #expect((try FileManager.default.attributesOfItem(atPath: loose)[.posixPermissions] as? Int) == 0o700)
    }

    @Test func aFolderThatIsNotOursOrIsASymlinkIsRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/target", withIntermediateDirectories: true)
        #expect {
            try RuntimeFolder.prepare(folder + "/target", userID: getuid() + 1)
        } throws: { "\($0)".contains("belongs to user \(getuid()), not to you") }
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: folder + "/target")
        #expect {
            try RuntimeFolder.prepare(folder + "/link", userID: getuid())
        } throws: { "\($0)".contains("is not a directory (a symlink or a file)") }
    }
}
