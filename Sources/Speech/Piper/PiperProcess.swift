import Foundation
import HeraldCore
import Logging
import Subprocess
import Synchronization

/// One running Piper process (`PiperServerScript`), run by swift-subprocess from a task of its own
/// for the process's whole life: requests go in one at a time, in order, through its standard
/// input writer; the frames come back on its standard output sequence, and a watchdog kills the
/// process when a sentence makes no progress for `timeout`. Everything shared lives behind
/// `state`. Writes to a Piper that died fail with EPIPE because `main` ignores SIGPIPE.
final class PiperProcess: Sendable {
    private let timeout: Duration
    private let logger: Logger

    private struct Request {
        var line: Data
        var continuation: AsyncThrowingStream<[Float], any Error>.Continuation
    }

    private struct State {
        var ready: CheckedContinuation<Void, any Error>?
        var pid: Int32 = 0
        var writer: StandardInputWriter?
        var current: Request?
        var waiting: [Request] = []
        /// Why the process is gone; nil while it runs.
        var ended: String?
        var lastProgress = ContinuousClock.now
        var errorLines: [String] = []
        /// Why Herald killed it (a hang, a load that took too long), when it did.
        var killedBecause: String?
        /// Asked to stop before its writer existed.
        var stopped = false
        var whenEnded: [@Sendable (String) -> Void] = []
    }

    /// The largest frame Herald reads: a sentence of audio is well under a megabyte; a length
    /// past this is stray output, not a frame.
    private static let largestFrame = 64 << 20

    private let state = Mutex(State())

    /// The process's id (0 until it has started).
    var pid: Int32 { state.withLock { $0.pid } }

    private init(timeout: Duration, logger: Logger) {
        self.timeout = timeout
        self.logger = logger
    }

    /// Starts `python` with the server script and returns once the default model is loaded.
    /// - Throws: `SpeechError.engineUnavailable` with the program's last words when it cannot
    ///   start, exits while loading, or takes longer than `loadTimeout`.
    static func launch(python: String, model: String, threads: Int, timeout: Duration, loadTimeout: Duration,
                       logger: Logger) async throws -> PiperProcess {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw SpeechError.engineUnavailable("no program \(python) to run Piper; install a voice with scripts/install-voice.sh or set speech.piper.python")
        }
        let resident = PiperProcess(timeout: timeout, logger: logger)
        try await withCheckedThrowingContinuation { (ready: CheckedContinuation<Void, any Error>) in
            resident.state.withLock { $0.ready = ready }
            // The process lives as long as this task: it ends when the process does.
            Task { await resident.run(python: python, arguments: ["-u", "-c", PiperServerScript.source, model, "\(threads)"]) }
            Task {
                try? await Task.sleep(for: loadTimeout)
                if resident.state.withLock({ $0.ready != nil }) {
                    resident.kill(because: "Piper did not load \(model) within \(loadTimeout)")
                }
            }
        }
        return resident
    }

    /// Runs the process to its end, then fails what was asked of it with the reason.
    private func run(python: String, arguments: [String]) async {
        var options = PlatformOptions()
        // Only reached if the body throws, which it does not; a hung process gets SIGKILL from `kill`.
        options.teardownSequence = [.gracefulShutDown(allowedDurationToNextStep: .seconds(1))]
        let status: String
        var startFailure: String?
        do {
            let result = try await Subprocess.run(
                .path(.init(python)), arguments: .init(arguments), platformOptions: options,
                input: .inputWriter, output: .sequence, error: .sequence
            ) { execution in
                let writer = execution.standardInputWriter
                let (stopped, killed) = state.withLock { state in
                    state.pid = execution.processIdentifier.value
                    state.writer = writer
                    return (state.stopped, state.killedBecause != nil)
                }
                if stopped { try? await writer.finish() }
                // Killed (the load timeout) before its pid was known: the signal is sent now.
                if killed { send(SIGKILL) }
                // swift-subprocess reaps it after this body returns: from then on the pid may be
                // another process's, so no signal may use it.
                defer { state.withLock { $0.pid = 0 } }
                async let errors: Void = readErrors(execution.standardError)
                let watchdog = Task { await watch() }
                await readFrames(execution.standardOutput)
                await errors
                watchdog.cancel()
            }
            status = switch result.terminationStatus {
            case .exited(let code): "exited with status \(code)"
            case .signaled(let signal): "was killed by signal \(signal)"
            }
        } catch {
            status = "did not start"
            startFailure = "cannot start \(python): \(error)"
        }
        ended(status: status, startFailure: startFailure)
    }

    /// Speaks one request (a JSON line); the stream ends after its last sentence's audio, or
    /// throws when Piper fails it or the process ends.
    func say(_ line: Data) -> AsyncThrowingStream<[Float], any Error> {
        let (stream, continuation) = AsyncThrowingStream<[Float], any Error>.makeStream()
        let request = Request(line: line, continuation: continuation)
        let (send, ended) = state.withLock { state -> (Bool, String?) in
            if let ended = state.ended { return (false, ended) }
            if state.current == nil {
                state.current = request
                state.lastProgress = .now
                return (true, nil)
            }
            state.waiting.append(request)
            return (false, nil)
        }
        if let ended { continuation.finish(throwing: SpeechError.engineUnavailable(ended)) }
        if send { write(line) }
        return stream
    }

    /// Calls `action` with the reason once the process has ended (at once when it has).
    func whenEnded(_ action: @escaping @Sendable (String) -> Void) {
        let ended = state.withLock { state -> String? in
            if state.ended == nil { state.whenEnded.append(action) }
            return state.ended
        }
        if let ended { action(ended) }
    }

    var isRunning: Bool { state.withLock { $0.ended == nil } }

    /// Ends the process (SIGKILL: a hung process may not read SIGTERM's handler); its output
    /// closes and what was asked of it fails.
    func kill(because reason: String) {
        let first = state.withLock { state -> Bool in
            guard state.ended == nil, state.killedBecause == nil else { return false }
            state.killedBecause = reason
            return true
        }
        guard first else { return }
        logger.error("killing the Piper process \(pid): \(reason)")
        send(SIGKILL)
    }

    /// Stops the process for good: its input closes and it exits.
    func stop() {
        let writer = state.withLock { state in
            state.stopped = true
            return state.writer
        }
        if let writer { Task { try? await writer.finish() } }
        send(SIGTERM)
    }

    /// Signals the process while it runs: `ended` is recorded as soon as swift-subprocess has
    /// reaped it, so the pid is its own until then (but for that moment).
    private func send(_ signal: Int32) {
        let pid = state.withLock { $0.ended == nil ? $0.pid : 0 }
        if pid > 0 { Foundation.kill(pid, signal) }
    }

    private func write(_ line: Data) {
        guard let writer = state.withLock({ $0.writer }) else { return }
        let pid = pid, logger = logger
        Task {
            do { _ = try await writer.write(Array(line)) } catch {
                // The frame reader sees the process end and fails the request.
                logger.warning("could not write to the Piper process \(pid): \(error)")
            }
        }
    }

    private func watch() async {
        while isRunning, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(200))
            let stalled = state.withLock { state in
                state.current != nil && ContinuousClock.now - state.lastProgress > timeout
            }
            if stalled { kill(because: "no audio from Piper for \(timeout)") }
        }
    }

    /// Cuts standard output into frames (a kind byte, a little-endian length, the payload).
    private func readFrames(_ output: SubprocessOutputSequence) async {
        var pending: [UInt8] = []
        do {
            reading: for try await buffer in output {
                buffer.withUnsafeBytes { pending.append(contentsOf: $0) }
                var start = 0
                while pending.count - start >= 5 {
                    let kind = pending[start]
                    let length = pending[(start + 1)...(start + 4)].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
                    guard Array("RAEX".utf8).contains(kind), length <= Self.largestFrame else {
                        kill(because: "Piper wrote something that is not a frame (kind \(kind), \(length) bytes)")
                        break reading
                    }
                    guard pending.count - start - 5 >= length else { break }
                    handle(kind: kind, payload: Array(pending[(start + 5)..<(start + 5 + length)]))
                    start += 5 + length
                }
                pending.removeFirst(start)
            }
        } catch {
            // The process ended or was killed: its exit status tells.
        }
    }

    /// Records why the process ended (`startFailure` when it never ran) and fails what was waiting.
    private func ended(status: String, startFailure: String?) {
        let (waiting, actions, reason) = state.withLock { state in
            let lastWords = state.errorLines.suffix(3).joined(separator: " | ")
            let reason = startFailure ?? state.killedBecause.map { "the Piper process was killed: \($0)" }
                ?? "the Piper process \(status)\(lastWords.isEmpty ? "" : ": \(lastWords)")"
            state.ended = reason
            state.writer = nil
            let waiting = (state.current.map { [$0] } ?? []) + state.waiting
            state.current = nil
            state.waiting = []
            let ready = state.ready
            state.ready = nil
            ready?.resume(throwing: SpeechError.engineUnavailable(reason))
            return (waiting, state.whenEnded, reason)
        }
        for request in waiting { request.continuation.finish(throwing: SpeechError.engineUnavailable(reason)) }
        for action in actions { action(reason) }
    }

    private func handle(kind: UInt8, payload: [UInt8]) {
        switch kind {
        case UInt8(ascii: "R"):
            state.withLock { state in
                state.ready?.resume()
                state.ready = nil
            }
        case UInt8(ascii: "A"):
            let samples = payload.withUnsafeBytes { raw in
                (0..<raw.count / 4).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
            }
            let current = state.withLock { state in
                state.lastProgress = .now
                return state.current
            }
            current?.continuation.yield(samples)
        case UInt8(ascii: "E"), UInt8(ascii: "X"):
            let (finished, next) = state.withLock { state -> (Request?, Request?) in
                let finished = state.current
                state.current = state.waiting.isEmpty ? nil : state.waiting.removeFirst()
                state.lastProgress = .now
                return (finished, state.current)
            }
            if kind == UInt8(ascii: "E") {
                finished?.continuation.finish()
            } else {
                let message = String(decoding: payload, as: UTF8.self)
                finished?.continuation.finish(throwing: SpeechError.engineUnavailable("Piper could not say it: \(message)"))
            }
            if let next { write(next.line) }
        default:
            break  // readFrames lets only known kinds through
        }
    }

    /// Keeps Piper's last lines on standard error for the message when it ends; logs them at debug.
    private func readErrors(_ errors: SubprocessOutputSequence) async {
        var pending: [UInt8] = []
        do {
            for try await buffer in errors {
                buffer.withUnsafeBytes { pending.append(contentsOf: $0) }
                while let newline = pending.firstIndex(of: 10) {
                    keep(errorLine: pending[..<newline])
                    pending.removeSubrange(...newline)
                }
            }
        } catch {
            // Cut short when the process ended: what was read is kept.
        }
        keep(errorLine: pending[...])
    }

    private func keep(errorLine bytes: ArraySlice<UInt8>) {
        let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        guard !line.isEmpty else { return }
        logger.debug("piper: \(line)")
        state.withLock { state in
            state.errorLines.append(line)
            if state.errorLines.count > 20 { state.errorLines.removeFirst() }
        }
    }
}
