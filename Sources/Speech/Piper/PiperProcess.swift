import Foundation
import HeraldCore
import Logging
import Synchronization

/// One running Piper process (`PiperServerScript`): requests go in one at a time, in order; the
/// frames come back on a reader thread of its own (a blocking read must not hold one of the
/// cooperative pool's threads), and a watchdog kills the process when a sentence makes no
/// progress for `timeout`.
///
/// `Process` is not `Sendable`; it is only touched by `launch`, `kill` and the reader thread,
/// and everything else lives behind `state`.
final class PiperProcess: @unchecked Sendable {
    private let process: Process
    private let input: FileHandle
    let pid: Int32
    private let timeout: Duration
    private let logger: Logger

    private struct Request {
        var line: Data
        var continuation: AsyncThrowingStream<[Float], any Error>.Continuation
    }

    private struct State {
        var ready: CheckedContinuation<Void, any Error>?
        var current: Request?
        var waiting: [Request] = []
        /// Why the process is gone; nil while it runs.
        var ended: String?
        var lastProgress = ContinuousClock.now
        var errorLines: [String] = []
        /// Why Herald killed it (a hang, a load that took too long), when it did.
        var killedBecause: String?
        var whenEnded: [@Sendable (String) -> Void] = []
    }

    /// Signalled when standard error reaches its end, so the reason can quote Piper's last lines.
    private let errorsEnded = DispatchSemaphore(value: 0)

    /// The largest frame Herald reads: a sentence of audio is well under a megabyte; a length
    /// past this is stray output, not a frame.
    private static let largestFrame = 64 << 20

    private let state = Mutex(State())

    private init(process: Process, input: FileHandle, timeout: Duration, logger: Logger) {
        self.process = process
        self.input = input
        pid = process.processIdentifier
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
        // A write to a process that just died must fail with EPIPE, not kill Herald.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-u", "-c", PiperServerScript.source, model, "\(threads)"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch {
            throw SpeechError.engineUnavailable("cannot start \(python): \(error)")
        }
        let resident = PiperProcess(process: process, input: input.fileHandleForWriting, timeout: timeout, logger: logger)
        try await withCheckedThrowingContinuation { (ready: CheckedContinuation<Void, any Error>) in
            resident.state.withLock { $0.ready = ready }
            resident.startThreads(output: output.fileHandleForReading.fileDescriptor,
                                  errors: errors.fileHandleForReading.fileDescriptor)
            Task {
                try? await Task.sleep(for: loadTimeout)
                if resident.state.withLock({ $0.ready != nil }) {
                    resident.kill(because: "Piper did not load \(model) within \(loadTimeout)")
                }
            }
        }
        return resident
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

    /// Ends the process (SIGKILL: a hung process may not read SIGTERM's handler); the reader
    /// thread sees its output close and fails what was asked of it.
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
        try? input.close()
        send(SIGTERM)
    }

    /// Signals the process while it runs: once reaped, its pid may be another process's.
    private func send(_ signal: Int32) {
        if isRunning && process.isRunning { Foundation.kill(pid, signal) }
    }

    private func write(_ line: Data) {
        do { try input.write(contentsOf: line) } catch {
            // The reader thread sees the process end and fails the request.
            logger.warning("could not write to the Piper process \(pid): \(error)")
        }
    }

    private func startThreads(output: Int32, errors: Int32) {
        Thread { self.readFrames(output) }.start()
        Thread { self.readErrors(errors) }.start()
        Task { await self.watch() }
    }

    private func watch() async {
        while isRunning {
            try? await Task.sleep(for: .milliseconds(200))
            let stalled = state.withLock { state in
                state.current != nil && ContinuousClock.now - state.lastProgress > timeout
            }
            if stalled { kill(because: "no audio from Piper for \(timeout)") }
        }
    }

    private func readFrames(_ descriptor: Int32) {
        while let header = Self.read(descriptor, count: 5) {
            let length = header[1...4].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            guard Array("RAEX".utf8).contains(header[0]), length <= Self.largestFrame else {
                kill(because: "Piper wrote something that is not a frame (kind \(header[0]), \(length) bytes)")
                break
            }
            guard let payload = Self.read(descriptor, count: length) else { break }
            handle(kind: header[0], payload: payload)
        }
        process.waitUntilExit()
        // Its last words (a traceback) may still be in the pipe: give the stderr thread a moment.
        _ = errorsEnded.wait(timeout: .now() + .milliseconds(500))
        let status = process.terminationReason == .uncaughtSignal
            ? "was killed by signal \(process.terminationStatus)" : "exited with status \(process.terminationStatus)"
        let (waiting, actions, reason) = state.withLock { state in
            let lastWords = state.errorLines.suffix(3).joined(separator: " | ")
            let reason = state.killedBecause.map { "the Piper process was killed: \($0)" }
                ?? "the Piper process \(status)\(lastWords.isEmpty ? "" : ": \(lastWords)")"
            state.ended = reason
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
    private func readErrors(_ descriptor: Int32) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, 4096) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            pending += buffer[..<count]
            while let newline = pending.firstIndex(of: 10) {
                keep(errorLine: pending[..<newline])
                pending.removeSubrange(...newline)
            }
        }
        keep(errorLine: pending[...])
        errorsEnded.signal()
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

    /// Exactly `count` bytes from `descriptor`, or nil at the end of the stream.
    private static func read(_ descriptor: Int32, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress! + filled, count - filled) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return nil }
            filled += got
        }
        return bytes
    }
}
