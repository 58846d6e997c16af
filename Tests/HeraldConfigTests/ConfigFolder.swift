import Foundation
import HeraldApp
import HeraldConfig

/// A temporary folder holding a config file, a subfolder `afolder` and a regular file `afile`,
/// so file and path problems are tried on real files. `$DIR` in a config stands for the folder.
final class ConfigFolder {
    let path: String
    var configPath: String { path + "/herald.yaml" }

    init() throws {
        path = NSTemporaryDirectory() + "herald-config-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path + "/afolder", withIntermediateDirectories: true)
        try Data("not a folder\n".utf8).write(to: URL(fileURLWithPath: path + "/afile"))
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// `$DIR` replaced by this folder.
    func expand(_ text: String) -> String { text.replacingOccurrences(of: "$DIR", with: path) }

    /// Writes `bytes` as herald.yaml and loads it.
    func load(_ bytes: [UInt8]) async throws -> HeraldConfiguration {
        try Data(bytes).write(to: URL(fileURLWithPath: configPath))
        return try await HeraldConfiguration.load(file: configPath, stateDirectory: path + "/state")
    }

    /// The problems loading `bytes` reports; none when it loads.
    func problems(_ bytes: [UInt8]) async throws -> [ConfigProblem] {
        do {
            _ = try await load(bytes)
            return []
        } catch let error as ConfigError {
            return error.problems
        }
    }
}

extension Array where Element == UInt8 {
    /// `text` as UTF-8.
    static func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// `text` as UTF-16 with its byte-order mark, as Windows editors save "Unicode".
    static func utf16(_ text: String, bigEndian: Bool) -> [UInt8] {
        let units = text.utf16.flatMap { unit in
            bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
        return (bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]) + units
    }
}
