import Foundation
import FuzzSupport
import HeraldApp
import HeraldConfig

/// `HeraldConfiguration.load(file:stateDirectory:)` through its public API: the input is written to
/// a scratch `herald.yaml` each run (the loader reads a path; Sources/HeraldConfig has no entry
/// that takes bytes). A file either loads, or is refused with a `ConfigError` whose every problem
/// names this file and says what is wrong.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    guard FileManager.default.createFile(atPath: configPath, contents: Data(bytes)) else {
        Fuzz.require(false, "cannot write \(configPath)")
        return 0
    }
    switch Fuzz.wait({ try await HeraldConfiguration.load(file: configPath, stateDirectory: stateDirectory) }) {
    case .success(let configuration):
        Fuzz.require(configuration.file == configPath, "loaded as \(configuration.file ?? "nil")")
        Fuzz.require(configuration.stateDirectory == stateDirectory, "state directory \(configuration.stateDirectory)")
    case .failure(let error):
        guard let error = error as? ConfigError else {
            Fuzz.require(false, "threw \(type(of: error)), not a ConfigError: \(error)")
            return 0
        }
        Fuzz.require(!error.problems.isEmpty, "a ConfigError without problems")
        for problem in error.problems {
            Fuzz.require(problem.file == configPath, "a problem in \(problem.file): \(problem)")
            Fuzz.require(!problem.message.isEmpty, "a problem without a message at \(problem.key)")
            Fuzz.require(problem.line.map { $0 >= 1 && $0 <= bytes.count + 1 } ?? true, "line \(problem.line!) of a \(bytes.count)-byte file")
        }
    }
    return 0
}

/// One scratch folder per fuzzing process (libFuzzer's -fork and -jobs run several).
private let folder: String = {
    let folder = NSTemporaryDirectory() + "herald-fuzz-config-\(getpid())"
    try? FileManager.default.createDirectory(atPath: folder + "/state", withIntermediateDirectories: true)
    return folder
}()
private let configPath = folder + "/herald.yaml"
private let stateDirectory = folder + "/state"
