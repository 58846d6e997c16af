import Foundation
import Testing

/// Herald's files are its user's alone: everything a first `herald say` and `herald pay` create
/// in a fresh state folder and runtime folder is 0700 (folders) or 0600 (files), and
/// `herald doctor` names an existing folder or database other accounts can read, without changing it.
extension OnTheTestSink {
@Suite final class PrivateFilesTests {
    init() throws {
        try SoundServer.require()
    }

    func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int, "\(path)")
    }

    /// Every folder and file under `folder` by its path below it: its mode, and whether it is a folder.
    func modes(under folder: String) throws -> [String: (mode: Int, isFolder: Bool)] {
        var modes: [String: (mode: Int, isFolder: Bool)] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: folder) {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + path)
            modes[path] = (attributes[.posixPermissions] as? Int ?? -1, attributes[.type] as? FileAttributeType == .typeDirectory)
        }
        return modes
    }

    @Test func aFreshStateFolderHoldsOnlyPrivateFilesAfterASayAndAPay() throws {
        // Muted and quiet: Herald unmutes and raises, so the restore journal is written too.
        try SoundServer.setSink(volumes: ["20%"], muted: true)
        let root = NSTemporaryDirectory() + "herald-private-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        // Made by the test under its own umask (0755): what Herald makes inside must not follow it.
        for folder in ["home", "run"] {
            try FileManager.default.createDirectory(atPath: "\(root)/\(folder)", withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o755])
        }
        let previous = umask(0o022)  // what the herald processes inherit: a usual login's umask
        defer { umask(previous) }
        // No config file: the built-in defaults, the state under ~/.local/state/herald.
        let environment = ["HERALD_CONFIG": "", "HOME": root + "/home", "XDG_STATE_HOME": "", "XDG_RUNTIME_DIR": root + "/run"]
        for arguments in [["say", "Private files, one", "--priority", "high"], ["pay", "25.30"]] {
            let result = try SoundServer.run(HeraldHarness.binary, arguments, environment: environment)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }

        let made = try modes(under: root + "/home").merging(try modes(under: root + "/run")) { $1 }
        let state = ".local/state/herald"
        for expected in [".local", ".local/state", state, "\(state)/herald.sqlite", "\(state)/herald.sqlite-journal",
                         "\(state)/herald.sqlite.migrate-lock", "\(state)/herald.sqlite.restore-journal.0", "\(state)/cache", "herald"] {
            #expect(made[expected] != nil, "\(expected) was made: \(made.keys.sorted())")
        }
        #expect(made.keys.contains { $0.hasPrefix("herald/safeguard-") && $0.hasSuffix(".lock") }, "\(made.keys.sorted())")
        #expect(made.keys.contains { $0.hasPrefix("\(state)/cache/") && $0.hasSuffix(".flac") }, "a cached clip: \(made.keys.sorted())")
        #expect(made.keys.filter { $0.hasPrefix("\(state)/audio/") && $0.hasSuffix(".wav") }.count == 2,
                "the audio of both, kept for listening back: \(made.keys.sorted())")
        for (path, found) in made {
            #expect(found.mode == (found.isFolder ? 0o700 : 0o600), "\(path) is \(String(found.mode, radix: 8))")
        }
    }

    @Test func doctorNamesAFolderAndADatabaseOthersCanReadAndHeraldLeavesThemSo() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let harness = try HeraldHarness()
        try harness.appendConfig("cache:\n  path: \(harness.folder)/cache")
        #expect(try harness.herald(["history"]).status == 0, "the database is made")
        func doctor() throws -> [String: Any] {
            let result = try harness.herald(["doctor", "--json", "--no-tone"])
            let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
            let checks = json["checks"] as? [[String: Any]] ?? []
            return try #require(checks.last { $0["check"] as? String == "privacy" }, "\(result.stdout)\(result.stderr)")
        }
        #expect(try doctor()["level"] as? String == "ok", "Herald made them private")

        chmod(harness.folder, 0o755)
        chmod(harness.databasePath, 0o644)
        let privacy = try doctor()
        #expect(privacy["level"] as? String == "warning")
        let detail = privacy["detail"] as? String ?? "", action = privacy["action"] as? String ?? ""
        #expect(detail.contains("\(harness.folder) (mode 0755)"), "\(detail)")
        #expect(detail.contains("\(harness.databasePath) (mode 0644)"), "\(detail)")
        #expect(action.contains("chmod 700 \(harness.folder)"), "\(action)")
        #expect(action.contains("chmod 600 \(harness.databasePath)"), "\(action)")

        // Used as they are: perhaps shared on purpose. Herald warns; it does not change them.
        #expect(try harness.herald(["say", "Still shared"]).status == 0)
        #expect(try mode(harness.folder) == 0o755)
        #expect(try mode(harness.databasePath) == 0o644)

        chmod(harness.folder, 0o700)
        chmod(harness.databasePath, 0o600)
        chmod(harness.databasePath + "-journal", 0o600)  // made 0644 by SQLite, after its 0644 database
        #expect(try doctor()["level"] as? String == "ok")
    }
}
}
