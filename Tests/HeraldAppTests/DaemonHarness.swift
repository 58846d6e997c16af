import Foundation
@testable import HeraldApp
import HeraldConfig
import HeraldCore
import HeraldTesting
import Logging

/// An `AnnouncementDaemon` on the in-memory sound system, at a time of day the test sets: the
/// whole path (intake, quiet hours, queue, render, safeguard, log) with no sound server.
struct DaemonHarness {
    let folder: String
    let sound: InMemorySoundSystem
    let now: ManualNow
    let context: HeraldContext
    let daemon: AnnouncementDaemon
    let worker: Task<Void, Never>

    /// 2026-11-24 12:00 UTC: no quiet hours.
    static let noon = Date(timeIntervalSince1970: 1_795_521_600)

    /// - Parameters:
    ///   - configure: changes to the defaults (the sink starts at 20%, the target is 60%).
    ///   - beforeRun: what happens before the daemon's `run()` starts (a request arriving while
    ///     `herald serve` starts, say).
    ///   - logs: where the daemon's log lines go (nowhere unless a test reads them).
    init(at start: Date = Self.noon, logs: LogLines? = nil, configure: (inout HeraldConfiguration) -> Void = { _ in },
         beforeRun: (AnnouncementDaemon) async throws -> Void = { _ in }) async throws {
        folder = NSTemporaryDirectory() + "herald-daemon-\(UUID().uuidString)"
        sound = InMemorySoundSystem(sink: nullSink(volumes: percent(20, 20)))
        now = ManualNow(start)
        context = try Self.context(folder: folder, logs: logs) { configuration in
            configuration.safeguard.minVolume = Volume(percent: 50)
            configuration.safeguard.targetVolume = Volume(percent: 60)
            configure(&configuration)
        }
        let sound = self.sound
        let connector = SoundConnector(logger: context.logger, connect: { _, _ in sound }, onConnect: { _ in }, changed: {})
        await connector.connectOnce()
        let daemon = AnnouncementDaemon(context: context, connector: connector, now: now.read, sleep: now.sleep)
        self.daemon = daemon
        try await beforeRun(daemon)
        worker = Task { await daemon.run() }
        // A row submitted before `run` reads the log's unfinished rows would be queued twice.
        let deadline = ContinuousClock.now + .seconds(10)
        while await !daemon.requeued && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
    }

    /// A context in `folder` (its store and journal there), from the defaults as changed.
    static func context(folder: String, logs: LogLines? = nil, _ configure: (inout HeraldConfiguration) -> Void) throws -> HeraldContext {
        var configuration = HeraldConfiguration.defaults(stateDirectory: folder)
        configuration.chimes = [:]
        configure(&configuration)
        let logger = Logger(label: "test") { _ -> any LogHandler in
            if let logs { LineHandler(lines: logs) } else { SwiftLogNoOpLogHandler() }
        }
        // A runtime folder of its own: its own safeguard lock, not the developer's.
        return try HeraldContext(configuration: configuration, logger: logger, runtime: .folder(folder))
    }

    /// Submits `request`, which must be accepted; returns its row.
    func submit(_ request: AnnouncementRequest) async throws -> AnnouncementRecord {
        guard case .accepted(let record) = try await daemon.submit(request) else {
            throw HarnessError.notAccepted
        }
        return record
    }

    /// Submits `request` and returns once it plays, held there until `sound.releasePlayback()`:
    /// what the test does next happens mid-announcement.
    func playingAndHeld(_ request: AnnouncementRequest) async throws -> AnnouncementRecord {
        await sound.holdPlayback()
        let record = try await submit(request)
        await sound.waitUntilPlaying()
        return record
    }

    /// The outcome of `id`, waited for as `?wait=true` does, within `limit`.
    func outcome(of id: String, within limit: Duration = .seconds(20)) async throws -> AnnouncementRecord? {
        let daemon = self.daemon
        let waiting = Task { try await daemon.waitUntilFinished(id: id) }
        let timer = Task {
            try? await Task.sleep(for: limit)
            waiting.cancel()
        }
        defer { timer.cancel() }
        return try await waiting.value
    }

    /// Polls `condition` until it holds or `limit` passes (the worker runs in its own task).
    func eventually(within limit: Duration = .seconds(10), _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return try await condition()
    }

    /// Puts `context` in force, as a reload of `herald serve` does.
    func reload(_ context: HeraldContext) async {
        daemon.live.replace(with: context)
        await daemon.configChanged()
    }

    func stop() async {
        await sound.releasePlayback()
        await daemon.stop()
        await worker.value
        try? FileManager.default.removeItem(atPath: folder)
    }

    enum HarnessError: Error { case notAccepted }
}

/// The lines a daemon logged, for a test that counts them.
final class LogLines: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private var stored: [String] = []

    var all: [String] { lock.withLock { stored } }
    func append(_ line: String) { lock.withLock { stored.append(line) } }
}

/// Sends every message to `lines`, at every level.
struct LineHandler: LogHandler {
    let lines: LogLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) { lines.append("\(event.level): \(event.message)") }
}
