import Foundation
import HeraldCore
import PulseAudio

extension Doctor {
    /// The server, the target sink, its mute and volume, the other programs on it, a pending
    /// journal, and a short tone listened for on its monitor.
    func soundChecks() async -> [DoctorFinding] {
        let sound: PulseConnection
        let server: ServerInfo
        do {
            // Named as every Herald connection: the safeguard ducks any stream not called "Herald",
            // and would duck the doctor's own tone.
            sound = try await PulseConnection(timeout: .seconds(3), logger: context.logger)
            server = try await sound.serverInfo()
        } catch {
            return [DoctorFinding("sound server", .problem, "none answers: \(error)",
                                  action: "start the user's server (`pulseaudio --start`, or PipeWire's pipewire-pulse); run Herald as the user who owns it, or point PULSE_SERVER at it (docs/operations.md, \"Running it as a service\")")]
        }
        var findings = [DoctorFinding("sound server", .ok, "\(server.name) \(server.version)")]
        if let rooms = context.configuration.configuredRooms {
            findings += await StatusReport.roomSinks(rooms, on: sound).map(Self.roomFinding)
            findings += await noiseChecks(sound: sound)
        }
        let configured = context.configuration.safeguard.sinkName
        let sinkName: String
        do { sinkName = try await context.targetSinkName(on: sound) } catch {
            findings.append(DoctorFinding("sink", .problem, "no sink is configured and the server has no default sink",
                                          action: "plug in the speaker, or `pactl set-default-sink NAME`, or set sink: in the config"))
            return findings
        }
        let sink: SinkState
        do { sink = try await sound.sink(named: sinkName) } catch {
            findings.append(DoctorFinding("sink", .problem, "\(sinkName)\(configured == nil ? " (the default sink)" : " (sink: in the config)") is not on the server: \(error)",
                                          action: "plug in the speaker, or set sink: to a name `pactl list short sinks` shows"))
            return findings
        }
        findings.append(DoctorFinding("sink", .ok, "\(sink.name) (\(sink.description)), \(sink.state.rawValue)\(configured == nil ? ", the server's default" : "")"))
        findings.append(volumeCheck(sink))
        findings.append(await othersCheck(sink, sound: sound))
        if !((try? await context.journal.pending()) ?? []).isEmpty {
            findings.append(DoctorFinding("journal", .warning, "a Herald process died mid-announcement: the sink or other streams may still be raised or ducked",
                                          action: "herald restore (the daemon does it by itself when it starts)"))
        }
        if playTone { findings.append(await toneCheck(sound: sound, sink: sink)) }
        return findings
    }

    /// How long after it is written a room is heard: what its sink reports and its
    /// `latency_offset`. The rooms of one announcement are started so that all are heard at once.
    static func latencyNote(_ room: StatusReport.RoomSink) -> String {
        guard let reported = room.latencyMilliseconds else { return "" }
        let offset = room.latencyOffsetMilliseconds ?? 0
        // An idle or suspended sink reports none: nothing worth a note without an offset.
        if reported == 0 && offset == 0 { return "" }
        var note = " (heard \(reported + offset) ms after it is written: "
        note += reported > 0 ? "\(reported) ms the sink reports" : "the sink reports none while idle"
        if offset > 0 { note += " + \(offset) ms latency_offset" }
        return note + ")"
    }

    /// A room with its sink, or why it has none (absent, shared, a match that fits two).
    static func roomFinding(_ room: StatusReport.RoomSink) -> DoctorFinding {
        let check = "room \(room.room)"
        guard let problem = room.problem else { return DoctorFinding(check, .ok, (room.sink ?? "?") + Self.latencyNote(room)) }
        guard let sink = room.sink else {
            return DoctorFinding(check, .warning, problem,
                                 action: "plug in its speaker, or make its sink: or match: name exactly one sink `pactl list sinks` shows")
        }
        return DoctorFinding(check, .problem, "\(sink): \(problem)", action: "give each room a sink: or match: of its own")
    }

    /// Muted or too quiet: what the safeguard makes of it, per priority.
    func volumeCheck(_ sink: SinkState) -> DoctorFinding {
        let settings = context.configuration.safeguard
        let loudest = sink.volumes.loudest
        let volumes = "\(sink.volumes)"
        if sink.muted {
            let respecting = Priority.allCases.filter {
                context.configuration.priorities.mutePolicy(for: $0, fallback: settings.mutePolicy) == .respect
            }
            let said = Priority.allCases.filter { !respecting.contains($0) }.map(\.rawValue).joined(separator: ", ")
            let unsaid = respecting.map(\.rawValue).joined(separator: ", ")
            // Low respecting a mute is the default and by design; a payment or a reminder not heard is not.
            let level: DoctorFinding.Level = respecting.contains { $0 != .low } ? .problem : .warning
            return DoctorFinding("mute", level, "\(sink.name) is muted (\(volumes)); Herald unmutes it for \(said)\(unsaid.isEmpty ? "" : ", and does not play \(unsaid) (their mute policy is respect)")",
                                 action: level == .problem ? "unmute it (`pactl set-sink-mute \(sink.name) 0`), or set priorities.PRIORITY.mute: override"
                                     : "unmute it if low announcements should be heard too: pactl set-sink-mute \(sink.name) 0")
        }
        if loudest < settings.minVolume {
            let level: DoctorFinding.Level = loudest.raw == 0 && settings.targetVolume.raw == 0 ? .problem : .ok
            return DoctorFinding("volume", level, "\(volumes): below safeguard.min_volume (\(settings.minVolume)), so Herald raises it to \(settings.targetVolume) for each announcement and puts it back after")
        }
        return DoctorFinding("volume", .ok, "\(volumes), at or above safeguard.min_volume (\(settings.minVolume)): played as it is")
    }

    /// Another program playing on the sink: ducked, not a fault; a stream muted or at 0% is listed
    /// so a silent radio is not mistaken for Herald's doing.
    func othersCheck(_ sink: SinkState, sound: PulseConnection) async -> DoctorFinding {
        let others = ((try? await sound.streams()) ?? []).filter { $0.sinkIndex == sink.index && !$0.isHerald }
        guard !others.isEmpty else { return DoctorFinding("other programs", .ok, "none playing on \(sink.name)") }
        let names = others.map { "\($0.applicationName ?? "stream #\($0.index)") \($0.volumes)\($0.muted ? " muted" : "")" }
        let duck = Int((context.configuration.safeguard.duckLevel * 100).rounded())
        return DoctorFinding("other programs", .ok, "\(others.count) playing on \(sink.name) (\(names.joined(separator: ", "))): heard at \(duck)% during announcements")
    }

    /// A 0.3 s tone played with the safeguard (as an announcement of normal priority would be),
    /// listened for on the sink's monitor: the one check that proves sound reaches the sink.
    func toneCheck(sound: PulseConnection, sink: SinkState) async -> DoctorFinding {
        let rate = 48_000
        let tone = Clip(sampleRate: rate, channelCount: 1, samples: (0..<(rate * 3 / 10)).map {
            Float(0.25 * sin(2 * Double.pi * 880 * Double($0) / Double(rate)))
        })
        do {
            let probe = try await MonitorProbe(connection: sound, sinkName: sink.name)
            defer { probe.close() }
            probe.arm(threshold: 0.0005)
            let room = Room(name: "doctor", sink: .named(sink.name), safeguard: context.configuration.safeguard)
            switch try await SafeguardSession.open(context: context, sound: sound, rooms: [room], priority: .normal,
                                                   lockTimeout: .seconds(15)) {
            case .suppressedMuted:
                return DoctorFinding("tone", .problem, "not played: \(sink.name) is muted and normal announcements respect the mute",
                                     action: "unmute the sink, or set priorities.normal.mute: override")
            case .opened(let session):
                // Closed (restored) whether or not the tone played.
                var failure: (any Error)?
                do { _ = try await sound.play(.clip(tone), onSink: session.sinkName, mediaRole: "event") } catch { failure = error }
                _ = await session.close()
                if let failure { throw failure }
            }
            _ = try await probe.heard(timeout: .seconds(2))
            return DoctorFinding("tone", .ok, "a 0.3 s tone was heard on \(sink.name).monitor")
        } catch {
            return DoctorFinding("tone", .problem, "a 0.3 s tone played on \(sink.name) did not reach its monitor: \(error)",
                                 action: "check the sink is not suspended by a broken device or held by a program using the card directly (`fuser -v /dev/snd/*`); `herald doctor --no-tone` skips this")
        }
    }
}
