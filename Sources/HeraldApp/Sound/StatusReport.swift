import HeraldCore

/// `herald status`: what the server, the sink and its streams look like now, and what the
/// safeguard would do if an announcement started this moment.
public struct StatusReport: Codable, Sendable {
    public struct Sink: Codable, Sendable {
        public var name: String
        public var description: String
        public var state: SinkRunState
        public var muted: Bool
        /// Per channel, as pactl shows them.
        public var volumePercent: [Int]
        public var channels: [String]
    }

    public struct Stream: Codable, Sendable {
        public var index: UInt32
        public var application: String?
        public var mediaRole: String?
        public var muted: Bool
        public var volumePercent: [Int]
        public var herald: Bool
    }

    /// A configured room and the sink it finds now.
    public struct RoomSink: Codable, Sendable {
        public var room: String
        /// The sink it would play on now; nil when absent or ambiguous.
        public var sink: String?
        /// Why it has none: absent, or which sinks its match fits.
        public var problem: String?
        /// Its sink's mute and volume per channel now, when it has one.
        public var muted: Bool?
        public var volumePercent: [Int]?
        /// What its microphone hears now and the gain an announcement would get (`noise:`);
        /// only the daemon listens, so only its report has it.
        public var noise: NoiseReading?
        /// Its sink's latency as reported now, and the room's `latency_offset`: rooms are
        /// started so that all are heard at once on the sum (`LatencyAlignment`).
        public var latencyMilliseconds: Int?
        public var latencyOffsetMilliseconds: Int?

        init(room: String, sink: SinkState? = nil, problem: String? = nil, latencyOffset: Duration = .zero) {
            self.room = room
            self.sink = sink?.name
            self.problem = problem
            muted = sink?.muted
            volumePercent = sink?.volumes.channels.map(\.percent)
            latencyMilliseconds = sink?.latency?.inMilliseconds
            latencyOffsetMilliseconds = latencyOffset.inMilliseconds
        }
    }

    public var server: String?
    public var serverError: String?
    public var sink: Sink?
    public var sinkError: String?
    public var streams: [Stream]
    /// Plain sentences: "unmute", "raise 20% -> 70%", "duck paplay 80% -> 24%", or "play as is".
    public var safeguardWouldDo: [String]
    /// True when a journal is waiting for `herald restore`.
    public var pendingJournal: Bool
    /// The rooms of `rooms:` and where each finds its sink; empty without `rooms:`.
    public var rooms: [RoomSink] = []

    /// Gathers the report; never throws: what could not be read is reported as an error field.
    /// A resident process passes its open connection; otherwise one is made for the report.
    public static func gather(context: HeraldContext, sound resident: (any SoundSystem)? = nil) async -> StatusReport {
        var report = StatusReport(server: nil, serverError: nil, sink: nil, sinkError: nil, streams: [],
                                  safeguardWouldDo: [], pendingJournal: false)
        report.pendingJournal = !((try? await context.journal.pending()) ?? []).isEmpty
        let sound: any SoundSystem
        do {
            if let resident { sound = resident } else { sound = try await context.connectSound() }
            let info = try await sound.serverInfo()
            report.server = "\(info.name) \(info.version)"
        } catch {
            report.serverError = "\(error)"
            // Each room is still listed, with what its microphone last said (it says why it hears nothing now).
            report.rooms = (context.configuration.configuredRooms?.rooms ?? []).map { room in
                var line = RoomSink(room: room.name, problem: "no sound server")
                line.noise = context.roomNoise.reading(room.name)
                return line
            }
            return report
        }
        if let rooms = context.configuration.configuredRooms {
            report.rooms = await roomSinks(rooms, on: sound)
            for index in report.rooms.indices { report.rooms[index].noise = context.roomNoise.reading(report.rooms[index].room) }
        }
        do {
            let sinkName = try await context.targetSinkName(on: sound)
            let sink = try await sound.sink(named: sinkName)
            let streams = try await sound.streams().filter { $0.sinkIndex == sink.index }
            report.sink = Sink(name: sink.name, description: sink.description, state: sink.state, muted: sink.muted,
                               volumePercent: sink.volumes.channels.map(\.percent), channels: sink.channelNames)
            report.streams = streams.map {
                Stream(index: $0.index, application: $0.applicationName, mediaRole: $0.mediaRole, muted: $0.muted,
                       volumePercent: $0.volumes.channels.map(\.percent), herald: $0.isHerald)
            }
            // The same machine an announcement would run, on what the server shows now.
            var machine = SafeguardMachine(settings: context.configuration.safeguard, processID: 0)
            report.safeguardWouldDo = describe(machine.open(sink: sink, streams: streams,
                                                            mute: context.configuration.safeguard.mutePolicy),
                                               machine: machine, sink: sink)
        } catch {
            report.sinkError = "\(error)"
        }
        return report
    }

    /// Each room and the sink it finds now; a failed look is said in every room's line, and the
    /// rest of the report stands.
    static func roomSinks(_ rooms: RoomSettings, on sound: any SoundSystem) async -> [RoomSink] {
        do {
            let sinks = try await sound.sinks()
            let defaultSink = try await sound.serverInfo().defaultSinkName
            let picks = rooms.rooms.map { ($0, $0.pick(from: sinks, defaultSink: defaultSink)) }
            return picks.map { room, pick in
                switch pick {
                case .found(let sink):
                    // Two rooms on one speaker would say each announcement twice there.
                    let sharing = picks.filter { $0.0.name != room.name && $0.1 == .found(sink) }.map(\.0.name)
                    return sharing.isEmpty ? RoomSink(room: room.name, sink: sink, latencyOffset: room.latencyOffset)
                        : RoomSink(room: room.name, sink: sink,
                                   problem: "room \(sharing.joined(separator: ", ")) finds this sink too; give each room its own sink")
                case .absent: return RoomSink(room: room.name, problem: "no sink is \(room.sink) now")
                case .ambiguous(let names):
                    return RoomSink(room: room.name, problem: "its match fits \(names.joined(separator: ", ")); make it name one (add a property, or use sink:)")
                }
            }
        } catch {
            return rooms.rooms.map { RoomSink(room: $0.name, problem: "the sinks could not be listed: \(error)") }
        }
    }

    static func describe(_ opening: SafeguardMachine.Opening, machine: SafeguardMachine, sink: SinkState) -> [String] {
        guard case .proceed = opening, let entry = machine.entry else {
            return ["not play: the sink is muted and safeguard.mute is respect"]
        }
        var actions: [String] = []
        if entry.unmuted { actions.append("unmute the sink") }
        if let raiseTo = entry.setVolumes { actions.append("raise the sink \(sink.volumes) -> \(raiseTo)") }
        for duck in entry.ducks {
            let name = duck.applicationName ?? "stream #\(duck.streamIndex)"
            actions.append(duck.silenced ? "keep \(name) silent (mute it: nothing of it was heard)"
                                         : "duck \(name) \(duck.original) -> \(duck.ducked)")
        }
        return actions.isEmpty ? ["play as is (loud enough, unmuted, nothing to duck)"] : actions
    }

    /// The report for people.
    public var text: String {
        var lines: [String] = []
        lines.append("server:  \(server ?? "unreachable: \(serverError ?? "?")")")
        if let sink {
            lines.append("sink:    \(sink.name) (\(sink.description)), \(sink.state.rawValue)")
            lines.append("mute:    \(sink.muted ? "muted" : "unmuted")")
            let volumes = zip(sink.channels, sink.volumePercent).map { "\($0) \($1)%" }.joined(separator: ", ")
            lines.append("volume:  \(volumes)")
        } else if let sinkError {
            lines.append("sink:    \(sinkError)")
        }
        if sink != nil {
            lines.append("streams: \(streams.isEmpty ? "none" : "")")
            for stream in streams {
                let volume = stream.volumePercent.map { "\($0)%" }.joined(separator: " ")
                lines.append("  #\(stream.index) \(stream.application ?? "?") role=\(stream.mediaRole ?? "-") \(volume)\(stream.muted ? " muted" : "")\(stream.herald ? " (Herald)" : "")")
            }
            lines.append("safeguard would: \(safeguardWouldDo.joined(separator: "; "))")
        }
        for room in rooms {
            let level = room.volumePercent.map { "\($0.map { "\($0)%" }.joined(separator: " "))\(room.muted == true ? " muted" : "")" }
            lines.append("room \(room.room): \([room.sink, level, room.problem].compactMap { $0 }.joined(separator: "; "))")
            if let noise = room.noise { lines.append("  noise: \(noise.text)") }
        }
        lines.append("journal: \(pendingJournal ? "PENDING: run 'herald restore'" : "clear")")
        return lines.joined(separator: "\n")
    }
}
