import HeraldCore
import Logging
import PulseAudio

/// Listens to the microphone of every room with `noise:` and feeds `RoomNoise`: finds each room's
/// source once a second, keeps a `SourceMeter` on it, connects again when the sound server comes
/// back, and says (in the log, once per change) when a room cannot be listened to. A room it
/// cannot hear keeps its plain safeguard: nothing here ever waits in an announcement's way.
struct NoiseMonitor {
    let live: LiveContext
    let logger: Logger
    /// How often it looks at the rooms, their sources and the meters.
    static let interval = Duration.seconds(1)

    func run() async {
        var state = State()
        defer { state.closeAll() }
        var backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(10))
        while !Task.isCancelled {
            let context = live.value
            let settings = Dictionary(uniqueKeysWithValues: (context.configuration.configuredRooms?.rooms ?? []).compactMap { room in
                room.noise.map { (room.name, $0) }
            })
            context.roomNoise.configure(settings)
            state.forget(allBut: Set(settings.keys))
            guard !settings.isEmpty else {
                state.disconnect()
                try? await Task.sleep(for: Self.interval)
                continue
            }
            do {
                let connection = try await state.connection(logger: logger)
                let sources = try await connection.sources()
                backoff.reset()
                for (room, noise) in settings.sorted(by: { $0.key < $1.key }) {
                    let (source, problem) = state.listen(room, noise, sources: sources, on: connection, into: context.roomNoise)
                    context.roomNoise.listening(room, source: source, problem: problem)
                    report(room, context.roomNoise.reading(room), state: &state)
                }
                try? await Task.sleep(for: Self.interval)
            } catch {
                state.disconnect()
                for room in settings.keys {
                    context.roomNoise.listening(room, source: nil, problem: "no sound server (\(error)); trying again")
                    report(room, context.roomNoise.reading(room), state: &state)
                }
                try? await Task.sleep(for: backoff.next())
            }
        }
    }

    /// Logs a room's problem when it changes, and sets its gauges.
    private func report(_ room: String, _ reading: NoiseReading?, state: inout State) {
        guard let reading else { return }
        HeraldMetrics.roomNoise(room, floorDBFS: reading.floorDBFS, gainDB: reading.gainDB)
        guard state.problems[room] != reading.problem else { return }
        state.problems[room] = reading.problem
        if let problem = reading.problem {
            logger.warning("room \(room): its microphone is not heard (\(problem)); announcements there keep the room's plain safeguard")
        } else {
            logger.info("room \(room): listening to its microphone \(reading.source ?? "?")")
        }
    }

    /// The connection and the meters, touched only by `run`.
    private struct State {
        var connection: PulseConnection?
        var meters: [String: SourceMeter] = [:]
        var problems: [String: String?] = [:]
        /// Rooms whose meter failed: how often in a row, and when to try again.
        var troubles: [String: (count: Int, retryAt: ContinuousClock.Instant)] = [:]

        mutating func connection(logger: Logger) async throws -> PulseConnection {
            if let connection, connection.isConnected { return connection }
            disconnect()
            let made = try await PulseConnection(applicationName: "Herald noise meter", timeout: .seconds(3), logger: logger)
            connection = made
            return made
        }

        mutating func disconnect() {
            closeAll()
            connection = nil
        }

        mutating func closeAll() {
            for meter in meters.values { meter.close() }
            meters = [:]
        }

        mutating func forget(allBut rooms: Set<String>) {
            for (room, meter) in meters where !rooms.contains(room) {
                meter.close()
                meters[room] = nil
            }
            problems = problems.filter { rooms.contains($0.key) }
            troubles = troubles.filter { rooms.contains($0.key) }
        }

        /// Finds `room`'s source and keeps a meter recording it; the source's name and what is
        /// wrong, if anything.
        mutating func listen(_ room: String, _ noise: NoiseSettings, sources: [SourceState], on connection: PulseConnection,
                             into roomNoise: RoomNoise) -> (source: String?, problem: String?) {
            let source: SourceState
            switch noise.pick(among: sources) {
            case .success(let picked): source = picked
            case .failure(let problem):
                meters[room]?.close()
                meters[room] = nil
                return (nil, noise.describe(problem))
            }
            let name = source.name
            let now = ContinuousClock.now
            if let meter = meters[room], meter.sourceName != name || !meter.isRecording {
                meter.close()
                meters[room] = nil
                if meter.sourceName == name { failed(room, now: now) }
            }
            if meters[room] == nil, (troubles[room]?.retryAt ?? now) <= now {
                do {
                    meters[room] = try SourceMeter(connection: connection, sourceName: name) { block in
                        roomNoise.heard(room, block, at: .now)
                    }
                } catch {
                    failed(room, now: now)
                }
            }
            if let trouble = troubles[room] {
                // Recording again for a while: the trouble is over.
                guard let meter = meters[room], now - meter.openedAt >= Self.settled else {
                    return (name, "recording from \(name) failed \(trouble.count) time(s); trying again")
                }
                troubles[room] = nil
            }
            return (name, source.problem)
        }

        /// How long a meter records after a failure before the room is said to be heard again.
        static let settled = Duration.seconds(10)

        /// A meter that keeps failing is tried again later and later, up to every 30 s.
        mutating func failed(_ room: String, now: ContinuousClock.Instant) {
            let count = (troubles[room]?.count ?? 0) + 1
            troubles[room] = (count, now + .seconds(min(1 << min(count, 5), 30)))
        }
    }
}
