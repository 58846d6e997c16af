import Foundation
import HeraldTesting
import Subprocess

/// A child process of the soak (a server, the daemon, a recorder), on swift-subprocess like every
/// process the soak starts: two libraries reaping children in one process lose each other's exits.
/// Its standard output goes to `onOutput`, or with its standard error to the file `log`.
final class Child: @unchecked Sendable {
    private let lock = NSLock()
    /// While it runs (swift-subprocess reaps it only after the body below returns, so a signal
    /// sent to this pid before then reaches this process).
    private var runningPID: pid_t?
    private var status: Int32?
    private var exitWaiters: [CheckedContinuation<Int32, Never>] = []
    private var startWaiter: CheckedContinuation<Void, any Error>?

    var pid: Int32 { lock.withLock { runningPID ?? 0 } }
    var isRunning: Bool { lock.withLock { status == nil } }

    /// Starts `path`; returns once it runs.
    init(_ path: String, _ arguments: [String], environment: [String: String], log: String?,
         onOutput: (@Sendable (Data) -> Void)? = nil) async throws {
        // Plain descriptors, read by a thread of our own: a reader that waits to fill a buffer would
        // hold a recorder's last samples (and their time) until the next sound.
        let logFD = open(log ?? "/dev/null", O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        var pipeFDs: [Int32] = [-1, -1]
        if onOutput != nil, pipe(&pipeFDs) == 0 { for fd in pipeFDs { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) } }
        let outputFD = onOutput != nil ? pipeFDs[1] : dup(logFD)
        let keys = Dictionary(uniqueKeysWithValues: environment.compactMap { key, value in Environment.Key(rawValue: key).map { ($0, value) } })
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            lock.withLock { startWaiter = continuation }
            Task.detached { [self, keys] in
                var code: Int32 = -1
                do {
                    let result = try await Subprocess.run(
                        .path(.init(path)), arguments: .init(arguments), environment: .custom(keys),
                        input: .none, output: .fileDescriptor(.init(rawValue: outputFD), closeAfterSpawningProcess: true),
                        error: .fileDescriptor(.init(rawValue: logFD), closeAfterSpawningProcess: true)
                    ) { execution in
                        lock.withLock { runningPID = execution.processIdentifier.value }
                        started(nil)
                    }
                    switch result.terminationStatus {
                    case .exited(let exited): code = exited
                    case .signaled(let signal): code = 128 + signal
                    }
                } catch {
                    started(error)
                }
                finished(code)
            }
        }
        if let onOutput {
            let readFD = pipeFDs[0]
            Thread.detachNewThread {
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = read(readFD, &buffer, buffer.count)
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    onOutput(Data(buffer[0..<count]))
                }
                close(readFD)
                onOutput(Data())
            }
        }
    }

    /// Tells `init` it runs (or could not start), once.
    private func started(_ error: (any Error)?) {
        let waiter = lock.withLock { () -> CheckedContinuation<Void, any Error>? in
            defer { startWaiter = nil }
            return startWaiter
        }
        if let error { waiter?.resume(throwing: error) } else { waiter?.resume() }
    }

    private func finished(_ code: Int32) {
        let waiters = lock.withLock { () -> [CheckedContinuation<Int32, Never>] in
            status = code
            runningPID = nil
            defer { exitWaiters = [] }
            return exitWaiters
        }
        for waiter in waiters { waiter.resume(returning: code) }
    }

    func signal(_ signal: Int32) { lock.withLock { if let runningPID { kill(runningPID, signal) } } }

    /// The exit status, once it has exited (128 + the signal when killed).
    func exit() async -> Int32 {
        await withCheckedContinuation { continuation in
            let done: Int32? = lock.withLock {
                if let status { return status }
                exitWaiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    /// Stops it (SIGTERM, then SIGKILL after `grace`) and waits for its exit.
    func stop(grace: Duration = .seconds(5)) async {
        signal(SIGTERM)
        let killer = Task {
            try await Task.sleep(for: grace)
            self.signal(SIGKILL)
        }
        _ = await exit()
        killer.cancel()
    }
}

/// Runs a short command to its end (swift-subprocess: nothing blocks a thread of the pool) and
/// returns its status (-1 when it could not run or was killed) and standard output.
func run(_ path: String, _ arguments: [String], environment: [String: String]) async -> (status: Int32, output: String) {
    do {
        let result = try await Subprocess.run(
            .path(.init(path)), arguments: Arguments(arguments),
            environment: .custom(Dictionary(uniqueKeysWithValues: environment.map { (Environment.Key(rawValue: $0.key)!, $0.value) })),
            output: .string(limit: 1 << 20), error: .discarded)
        guard case .exited(let code) = result.terminationStatus else { return (-1, "") }
        return (code, result.standardOutput)
    } catch {
        return (-1, "\(error)")
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    static func seconds(random range: ClosedRange<Double>, using generator: inout SeededRandom) -> Duration {
        .milliseconds(Int(Double.random(in: range, using: &generator) * 1000))
    }
}

/// One line to standard output, written at once (a soak stopped half-way still shows what it saw).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
