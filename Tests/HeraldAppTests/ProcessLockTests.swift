import Foundation
import HeraldApp
import Testing

@Suite struct ProcessLockTests {
    /// The pid written into the lock file is checked: /dev/full takes the lock and refuses the
    /// write (ENOSPC), as a full runtime folder would.
    @Test func aPidThatCannotBeWrittenIsAnError() async throws {
        do {
            let lock = try await ProcessLock.acquire(path: "/dev/full", timeout: .seconds(1))
            lock.release()
            Issue.record("the pid write to /dev/full was taken as written")
        } catch let failure as HeraldFailure {
            #expect("\(failure)".contains("/dev/full"), "\(failure)")
            #expect("\(failure)".contains(String(cString: strerror(ENOSPC))), "\(failure)")
        }
    }

    @Test func theHoldersPidIsInTheFile() async throws {
        let folder = NSTemporaryDirectory() + "herald-lock-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let lock = try await ProcessLock.acquire(path: folder + "/safeguard.lock", timeout: .seconds(1))
        defer { lock.release() }
        let text = try String(contentsOfFile: folder + "/safeguard.lock", encoding: .utf8)
        #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == String(getpid()))
    }
}
