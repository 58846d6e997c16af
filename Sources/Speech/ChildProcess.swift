import Foundation
import Synchronization

/// One run of a program to its end, without a way to hang Herald: its standard error is drained
/// while it runs (a program that writes more than a pipe holds, 64 KiB, would otherwise stop),
/// its standard input is written from a thread of its own, its exit is awaited (no polling), and
/// a timeout or the task's cancellation stops it (SIGTERM, then SIGKILL a second later).
final class ChildProcess: Sendable {
    struct Outcome: Sendable {
        var status: Int32
        /// True when a signal ended it (`status` is then the signal's number).
        var signalled: Bool
        /// The end of what it wrote on standard error (at most `errorTail` bytes).
        var errors: String
        var timedOut: Bool
        var cancelled: Bool
    }

    /// How much of standard error is kept: the end, where programs say why they failed.
    static let errorTail = 8 * 1024

    private let process: Process
    private let state = Mutex(State())

    private struct State {
        var exit: (status: Int32, signalled: Bool)?
        var waiter: CheckedContinuation<Void, Never>?
        var stopReason: StopReason?
        var errors: [UInt8] = []
        /// Standard error was read to its end, or waiting for that was given up.
        var errorsDrained = false
        var drainWaiter: CheckedContinuation<Void, Never>?
    }

    enum StopReason { case timedOut, cancelled }

    private init(process: Process) { self.process = process }

    /// Runs `executable` with `arguments`, `input` on its standard input (closed at once when
    /// nil), its standard output into `output`.
    /// - Throws: when the program cannot be started.
    static func run(executable: String, arguments: [String], input: Data?, output: FileHandle,
                    timeout: Duration) async throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        let inputPipe = Pipe(), errorPipe = Pipe()
        process.standardInput = inputPipe
        process.standardError = errorPipe
        let child = ChildProcess(process: process)
        process.terminationHandler = { ended in
            child.exited(status: ended.terminationStatus, signalled: ended.terminationReason == .uncaughtSignal)
        }
        try process.run()
        // A program that exits without reading its input must not kill Herald with SIGPIPE:
        // ignored, the write fails with EPIPE instead, and the exit status tells the story.
        signal(SIGPIPE, SIG_IGN)
        let writer = inputPipe.fileHandleForWriting
        if let input {
            Thread.detachNewThread {
                try? writer.write(contentsOf: input)
                try? writer.close()
            }
        } else {
            try? writer.close()
        }
        let reader = errorPipe.fileHandleForReading
        Thread.detachNewThread { child.drain(reader) }
        try? errorPipe.fileHandleForWriting.close()

        let timer = Task {
            try await Task.sleep(for: timeout)
            child.stop(.timedOut)
        }
        await withTaskCancellationHandler {
            await child.waitForExit()
        } onCancel: {
            child.stop(.cancelled)
        }
        timer.cancel()
        await child.waitForErrors(atMost: .milliseconds(250))
        return child.state.withLock { state in
            Outcome(status: state.exit?.status ?? -1, signalled: state.exit?.signalled ?? false,
                    errors: String(decoding: state.errors, as: UTF8.self),
                    timedOut: state.stopReason == .timedOut, cancelled: state.stopReason == .cancelled)
        }
    }

    private func exited(status: Int32, signalled: Bool) {
        let waiter = state.withLock { state in
            state.exit = (status, signalled)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    private func waitForExit() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if state.exit != nil { return true }
                state.waiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// SIGTERM now and SIGKILL a second later, unless it has exited by then. The first reason wins.
    private func stop(_ reason: StopReason) {
        let pid = process.processIdentifier
        let running = state.withLock { state in
            if state.stopReason == nil { state.stopReason = reason }
            return state.exit == nil
        }
        guard running, pid > 0 else { return }
        kill(pid, SIGTERM)
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) { [self] in
            // Until the exit is recorded the child is not reaped, so the pid is still its own.
            if state.withLock({ $0.exit == nil }) { kill(pid, SIGKILL) }
        }
    }

    /// Reads standard error to its end on a thread of its own, keeping its last `errorTail` bytes.
    private func drain(_ handle: FileHandle) {
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            state.withLock { state in
                state.errors.append(contentsOf: chunk)
                if state.errors.count > Self.errorTail { state.errors.removeFirst(state.errors.count - Self.errorTail) }
            }
        }
        try? handle.close()
        let waiter = state.withLock { state in
            state.errorsDrained = true
            defer { state.drainWaiter = nil }
            return state.drainWaiter
        }
        waiter?.resume()
    }

    /// Waits until standard error is read to its end, or `limit` passes: a program may leave a
    /// child holding the pipe open after it exits.
    private func waitForErrors(atMost limit: Duration) async {
        let deadline = Task { [self] in
            try await Task.sleep(for: limit)
            // Stop waiting: marked settled, so a wait that starts after this returns at once.
            let waiter = state.withLock { state in
                state.errorsDrained = true
                defer { state.drainWaiter = nil }
                return state.drainWaiter
            }
            waiter?.resume()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if state.errorsDrained { return true }
                state.drainWaiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
        deadline.cancel()
    }
}
