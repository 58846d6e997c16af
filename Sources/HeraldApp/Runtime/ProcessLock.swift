import Foundation
import RuntimePaths
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive lock on a file, so two Herald processes never hold the safeguard at once
/// (DESIGN.md rule 10). The kernel drops it when the process dies, even by kill -9.
public final class ProcessLock: Sendable {
    private let descriptor: Mutex<Int32>

    /// Takes the lock at `path`, waiting up to `timeout` for another process to release it.
    /// - Throws: `HeraldFailure.busy` naming the holder's process id when the wait runs out.
    public static func acquire(path: String, timeout: Duration) async throws -> ProcessLock {
        try PrivateFiles.makeFolder((path as NSString).deletingLastPathComponent)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, PrivateFiles.fileMode)
        guard descriptor >= 0 else {
            throw HeraldFailure.io("cannot open the lock file \(path): \(String(cString: strerror(errno)))")
        }
        let deadline = ContinuousClock.now + timeout
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK, ContinuousClock.now < deadline else {
                let holder = (try? String(contentsOfFile: path, encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
                close(descriptor)
                throw HeraldFailure.busy("another Herald process (pid \(holder)) holds the safeguard (\(path)); wait for it or stop it")
            }
            do { try await Task.sleep(for: .milliseconds(50)) } catch {
                close(descriptor)
                throw error
            }
        }
        // Padded to a fixed width, so it overwrites any earlier holder's without a truncate (a
        // synced change of the file's size, before every announcement's first word).
        let pid = String(getpid()).padding(toLength: 11, withPad: " ", startingAt: 0) + "\n"
        let written = pid.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        guard written == pid.utf8.count else {
            let reason = written < 0 ? String(cString: strerror(errno)) : "wrote \(written) of \(pid.utf8.count) bytes"
            close(descriptor)
            throw HeraldFailure.io("cannot write this process's id into the lock file \(path): \(reason)")
        }
        return ProcessLock(descriptor: descriptor)
    }

    private init(descriptor: Int32) { self.descriptor = Mutex(descriptor) }

    /// Releases the lock; also done on deinit.
    public func release() {
        descriptor.withLock { descriptor in
            guard descriptor >= 0 else { return }
            _ = flock(descriptor, LOCK_UN)
            close(descriptor)
            descriptor = -1
        }
    }

    deinit { release() }
}
