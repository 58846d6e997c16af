import Foundation

/// The Piper voice `scripts/test.sh` installs (scripts/install-voice.sh, into a folder kept
/// between runs) and exports as `HERALD_TEST_PIPER`.
enum PiperVoice {
    static let folder = SoundServer.environment["HERALD_TEST_PIPER"] ?? ""

    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "no Piper voice: run the tests with scripts/test.sh (it installs one with scripts/install-voice.sh and exports HERALD_TEST_PIPER)"
        }
    }

    /// The installed voice's model; throws when the test setup installed none (under CI a test
    /// that needs it fails, never skips).
    static func model() throws -> String {
        guard !folder.isEmpty, let enumerator = FileManager.default.enumerator(atPath: folder + "/lib") else { throw Missing() }
        for case let path as String in enumerator where path.hasSuffix(".onnx.json") {
            return folder + "/lib/" + String(path.dropLast(".json".count))
        }
        throw Missing()
    }

    /// The config's `speech` section for Piper with this voice.
    static func config(_ more: String = "") throws -> String {
        """
        speech:
          engine: piper
          piper:
            python: \(folder)/bin/python3
            model: \(try model())
        \(more)
        """
    }

    /// The Piper process `herald serve` (pid `daemon`) runs, once it runs.
    static func residentPID(of daemon: Int32) -> Int32? {
        let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }
        return pids.first { pid in
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            // pid (comm) state ppid ...: the fields after the last ')'.
            let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
            guard fields.count > 1, Int32(fields[1]) == daemon else { return false }
            let command = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
            return command.contains("herald-piper")
        }
    }
}
