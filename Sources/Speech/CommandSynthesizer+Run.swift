import Foundation
import Subprocess

extension CommandSynthesizer {
    /// How one run of the program ended.
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

    /// SIGTERM, and SIGKILL a second later unless it has exited by then: run on a timeout and when
    /// the calling task is cancelled.
    static var teardown: [TeardownStep] { [.gracefulShutDown(allowedDurationToNextStep: .seconds(1))] }

    /// Runs `executable` with `arguments` to its end through swift-subprocess, without a way to
    /// hang Herald: `input` is written while its standard error is read (a program that writes
    /// more than a pipe holds, 64 KiB, before reading would otherwise stop both sides), and the
    /// timeout or the task's cancellation tears it down (`teardown`) and reaps it before this returns.
    /// The process must ignore SIGPIPE (each `main` does): a program that exits without reading
    /// its input makes the write fail with EPIPE, and its exit status tells the story.
    /// - Parameters:
    ///   - input: written to standard input, which is then closed; closed at once when nil.
    ///   - output: the file descriptor its standard output goes to (left open).
    /// - Throws: when the program cannot be started.
    static func runProgram(executable: String, arguments: [String], input: [UInt8]?, output: Int32,
                           timeout: Duration) async throws -> Outcome {
        var finished: Finished?
        var timedOut = false
        try await withThrowingTaskGroup(of: Event.self) { group in
            group.addTask {
                do {
                    return .finished(try await run(executable: executable, arguments: arguments, input: input, output: output))
                } catch where Task.isCancelled {
                    // Stopped (timeout or cancellation) before it could report; torn down all the same.
                    return .stopped
                }
            }
            // Armed before the run is awaited; cancelling the run makes swift-subprocess tear the
            // program down.
            group.addTask {
                // Cancelled when the run ends first, or with the calling task.
                guard (try? await Task.sleep(for: timeout)) != nil else { return .stopped }
                return .timedOut
            }
            while let event = try await group.next() {
                switch event {
                case .finished(let result): finished = result
                case .timedOut: timedOut = true
                case .stopped: break
                }
                group.cancelAll()
            }
        }
        guard let finished else {
            return Outcome(status: -1, signalled: false, errors: "", timedOut: timedOut, cancelled: !timedOut)
        }
        let (status, signalled): (Int32, Bool) = switch finished.terminationStatus {
        case .exited(let code): (code, false)
        case .signaled(let signal): (signal, true)
        }
        return Outcome(status: status, signalled: signalled, errors: String(decoding: finished.closureResult, as: UTF8.self),
                       timedOut: timedOut, cancelled: !timedOut && Task.isCancelled)
    }

    private typealias Finished = ExecutionResult<[UInt8], FileDescriptorOutput, SequenceOutput>

    private enum Event: Sendable {
        case finished(Finished)
        case timedOut
        case stopped
    }

    /// One run with its standard error's tail as the closure's result.
    private static func run(executable: String, arguments: [String], input: [UInt8]?, output: Int32) async throws -> Finished {
        var options = PlatformOptions()
        options.teardownSequence = teardown
        return try await Subprocess.run(
            .path(.init(executable)), arguments: .init(arguments), platformOptions: options,
            input: .inputWriter, output: .fileDescriptor(.init(rawValue: output), closeAfterSpawningProcess: false),
            error: .sequence
        ) { execution in
            // SIGTERM from the cancelling thread itself: swift-subprocess's own teardown starts a
            // few task hops later, which wait for a free thread of the shared pool (seconds on a
            // busy 2-core box). Its teardown still follows with SIGKILL a second later if needed.
            await withTaskCancellationHandler {
                let writer = execution.standardInputWriter
                // Written beside the reading of standard error; a failed write (EPIPE, the program
                // did not read) is not an error of its own.
                async let written: Void = {
                    if let input { _ = try? await writer.write(input) }
                    try? await writer.finish()
                }()
                var errors: [UInt8] = []
                do {
                    for try await buffer in execution.standardError {
                        buffer.withUnsafeBytes { errors.append(contentsOf: $0) }
                        if errors.count > errorTail { errors.removeFirst(errors.count - errorTail) }
                    }
                } catch {
                    // Cut short by a teardown: what was read is kept, the exit status tells the rest.
                }
                await written
                return errors
            } onCancel: {
                try? execution.send(signal: .terminate)
            }
        }
    }
}
