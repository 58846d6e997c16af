import Foundation
import HeraldConfig
import RuntimePaths

extension Doctor {
    /// Herald's files are its user's alone: the database (the payment log) and its journals, the
    /// clip cache, the audio kept for listening back and the runtime folder. Herald makes them private but never narrows one that
    /// exists (it may be shared on purpose), so an old one made under a wider umask, or by hand,
    /// is named here with its mode and the chmod that closes it.
    func privacyCheck() -> DoctorFinding {
        let configuration = context.configuration
        let database = configuration.databasePath
        let folders = [(database as NSString).deletingLastPathComponent, configuration.cache.directory,
                       KeptAudio.folder(databasePath: database), context.runtime.folder]
        let files = [database] + ["-journal", "-wal", "-shm", ".restore-journal.0", ".restore-journal.1", ".said.0", ".said.1", ".migrate-lock"]
            .map { database + $0 }
        var open: [(path: String, mode: mode_t, fix: mode_t)] = []
        for (paths, fix) in [(folders, PrivateFiles.folderMode), (files, PrivateFiles.fileMode)] {
            for path in Self.unique(paths) {
                if let mode = PrivateFiles.mode(of: path), mode & 0o077 != 0 { open.append((path, mode, fix)) }
            }
        }
        guard !open.isEmpty else {
            return DoctorFinding("privacy", .ok, "only this user can read the log, the cache and the runtime folder (\(Self.unique(folders).joined(separator: ", ")))")
        }
        let named = open.map { "\($0.path) (mode \(Self.octal($0.mode)))" }.joined(separator: ", ")
        let commands = [PrivateFiles.folderMode, PrivateFiles.fileMode].compactMap { fix -> String? in
            let paths = open.filter { $0.fix == fix }.map { Self.shellQuoted($0.path) }
            return paths.isEmpty ? nil : "chmod \(String(fix, radix: 8)) \(paths.joined(separator: " "))"
        }
        return DoctorFinding("privacy", .warning,
                             "other accounts on this machine can open \(named): the payment log and what was said are for this user only",
                             action: commands.joined(separator: "; ") + " (unless they are shared on purpose)")
    }

    /// The files holding the config's tokens, secrets and passwords, when other accounts can read
    /// one: nil when the config holds none.
    func secretsCheck() -> DoctorFinding? {
        let files = context.configuration.secretFiles
        guard !files.isEmpty else { return nil }
        let exposed = SecretFile.exposed(files)
        guard !exposed.isEmpty else {
            return DoctorFinding("secrets", .ok, "only this user can read \(files.map(\.path).joined(separator: ", ")) (tokens, secrets, passwords)")
        }
        return DoctorFinding("secrets", .warning, exposed.map(\.description).joined(separator: "; "),
                             action: "chmod 600 " + exposed.map { Self.shellQuoted($0.file.path) }.joined(separator: " "))
    }

    /// `0755`: a mode as chmod and ls write it.
    static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// `path` as one shell word: as it is when it is plain, else in single quotes.
    static func shellQuoted(_ path: String) -> String {
        let plain = path.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/._-+,:@%".contains($0)) }
        return plain && !path.isEmpty ? path : "'" + path.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    private static func unique(_ paths: [String]) -> [String] {
        var seen = Set<String>()
        return paths.filter { !$0.isEmpty && seen.insert(($0 as NSString).standardizingPath).inserted }
    }
}
