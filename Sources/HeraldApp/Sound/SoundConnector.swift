import Foundation
import HeraldCore
import Logging
import PulseAudio

/// The daemon's one way to the sound server: keeps a connection, connects again with backoff when
/// the server goes away or was never there, and says what it waits for (DESIGN.md rule 1).
///
/// Nothing else in the daemon holds a connection across announcements, so nobody keeps using a
/// dead one. The connections come from `connect` (PulseAudio unless a test passes its own).
public actor SoundConnector {
    /// What the connector is doing now, for `/v1/status`.
    public enum State: Sendable, Equatable {
        case connecting
        case connected(server: String)
        /// No server: `reason`, tried again at `retryAt`.
        case waiting(reason: String, retryAt: Date)
    }

    public private(set) var state: State = .connecting
    private var connection: (any SoundConnection)?
    private let logger: Logger
    private let connectTimeout: Duration
    /// Run on every new connection before anyone else uses it (the daemon applies the journal).
    private let onConnect: @Sendable (any SoundConnection) async -> Void
    /// Makes a new connection within the timeout.
    private let connect: @Sendable (Duration, Logger) async throws -> any SoundConnection
    /// Told of every change that may let a waiting announcement play: connected, a sink came,
    /// the default sink changed, the server went away.
    private let changed: @Sendable () -> Void
    /// Delays between reconnection attempts: 0.25 s doubling up to 5 s, so a restarted server is
    /// found within seconds and a missing one costs nothing.
    private var backoff = Backoff(initial: .milliseconds(250), maximum: .seconds(5))

    /// - Parameter connect: makes a connection (a new `PulseConnection` unless a test passes its own).
    public init(logger: Logger, connectTimeout: Duration = .seconds(5),
                connect: @escaping @Sendable (Duration, Logger) async throws -> any SoundConnection = SoundConnector.pulseAudio,
                onConnect: @escaping @Sendable (any SoundConnection) async -> Void,
                changed: @escaping @Sendable () -> Void) {
        self.logger = logger
        self.connect = connect
        self.connectTimeout = connectTimeout
        self.onConnect = onConnect
        self.changed = changed
    }

    /// Connects to PulseAudio: how `herald serve` connects unless a test passes its own.
    public static let pulseAudio: @Sendable (Duration, Logger) async throws -> any SoundConnection = { timeout, logger in
        try await PulseConnection(timeout: timeout, logger: logger)
    }

    /// The live connection, or the reason there is none (a `SoundSystemError`).
    public func current() throws -> any SoundConnection {
        if let connection, connection.isConnected { return connection }
        throw lastError ?? SoundSystemError.noServer("connecting")
    }

    /// Why the last attempt failed, as it was thrown.
    private var lastError: SoundSystemError?

    /// One attempt now, for a caller that must know before it goes on (the journal at start).
    public func connectOnce() async {
        guard connection == nil || connection?.isConnected == false else { return }
        await attempt()
    }

    /// Keeps the connection until the task is cancelled.
    public func run() async {
        while !Task.isCancelled {
            if connection?.isConnected != true { await attempt() }
            guard let connection, connection.isConnected else {
                let delay = backoff.next()
                try? await Task.sleep(for: delay)
                continue
            }
            // Events end when the connection dies: that is the signal to connect again.
            let events: AsyncStream<SoundEvent>
            do {
                events = try await connection.events()
            } catch {
                // Refused while connected: again after a while, not in a tight loop of requests.
                let delay = backoff.next()
                logger.warning("could not subscribe to the sound server's events (\(error)); trying again in \(delay)")
                try? await Task.sleep(for: delay)
                continue
            }
            for await event in events {
                switch event {
                case .sinkAdded, .sinkRemoved, .serverChanged: changed()
                default: continue
                }
            }
            if Task.isCancelled { break }
            logger.warning("the sound server went away; connecting again")
            self.connection = nil
            lastError = .connectionLost("the sound server went away; connecting again")
            state = .waiting(reason: "the sound server went away", retryAt: Date())
            changed()
        }
    }

    private func attempt() async {
        do {
            let fresh = try await connect(connectTimeout, logger)
            let info = try await fresh.serverInfo()
            backoff.reset()
            logger.notice("connected to the sound server \(info.name) \(info.version)")
            lastError = .noServer("connected; applying the restore journal first")
            // The journal first: nobody plays on this connection before it is applied.
            await onConnect(fresh)
            if case .waiting = state { HeraldMetrics.reconnected() }
            connection = fresh
            state = .connected(server: "\(info.name) \(info.version)")
            changed()
        } catch {
            let delay = backoff.peek
            if case .waiting = state {} else {
                logger.warning("no sound server (\(error)); trying again with backoff")
            }
            lastError = error as? SoundSystemError ?? .noServer("\(error)")
            state = .waiting(reason: "\(error)", retryAt: Date().addingTimeInterval(delay.inSeconds))
        }
    }
}
