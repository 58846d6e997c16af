import Foundation
import Synchronization

/// What every fuzzer needs: the input's parts, async calls driven from libFuzzer's synchronous
/// callback, and a failed property reported as a crash libFuzzer saves.
public enum Fuzz {
    /// The input's bytes (libFuzzer may pass a null pointer with size 0).
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// The bytes before the first `separator`, and those after it (nil when there is none).
    public static func split(_ bytes: [UInt8], at separator: UInt8) -> (head: [UInt8], tail: [UInt8]?) {
        guard let index = bytes.firstIndex(of: separator) else { return (bytes, nil) }
        return (Array(bytes[..<index]), Array(bytes[(index + 1)...]))
    }

    /// Stops the process with `message` when `condition` is false: libFuzzer saves the input as
    /// a crash (SIGABRT), and the message says which property failed.
    public static func require(_ condition: Bool, _ message: @autoclosure () -> String,
                               file: StaticString = #fileID, line: UInt = #line) {
        guard !condition else { return }
        FileHandle.standardError.write(Data("\n\(file):\(line): property failed: \(message())\n".utf8))
        abort()
    }

    /// The result of `body`, waited for on libFuzzer's thread (the work runs on the cooperative pool).
    public static func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            box.value.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return box.value.withLock { $0! }
    }
}

/// The hand-over from the task to the waiting thread.
private final class ResultBox<T: Sendable>: Sendable {
    let value = Mutex<Result<T, any Error>?>(nil)
}
