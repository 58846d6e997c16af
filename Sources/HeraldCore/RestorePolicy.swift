/// The changes that put a sink and its streams back, decided by DESIGN.md rule 7:
/// restore only what still equals what Herald set; anything else was changed by the user and is kept.
public struct RestoreActions: Sendable, Equatable {
    /// Volumes to put back on the sink, or nil to leave it.
    public var sinkVolumes: ChannelVolumes?
    /// Mute state to put back, or nil to leave it.
    public var sinkMuted: Bool?
    /// Streams to bring back from their current volume to their own.
    public var streams: [StreamRestore]
    /// Streams Herald muted, to unmute (after the sink is back).
    public var unmuteStreams: [UInt32]
    /// What was left alone because someone changed it meanwhile, for the log.
    public var keptUserChanges: [String]
    /// After a server restart: ducks whose applications have no stream yet. When one comes back,
    /// the server's stream-restore gives it the volume or mute Herald had set
    /// (`RestorePolicy.returningStreams`).
    public var awaitedStreams: [DuckPlan]
    /// The streams `returningStreams` looked at: a later look for `awaitedStreams` skips them
    /// (each was matched, or is another program's), so it never takes one twice.
    public var streamsSeen: Set<UInt32> = []

    public struct StreamRestore: Sendable, Equatable {
        public var streamIndex: UInt32
        public var current: ChannelVolumes
        public var original: ChannelVolumes
    }

    public init(sinkVolumes: ChannelVolumes? = nil, sinkMuted: Bool? = nil, streams: [StreamRestore] = [],
                unmuteStreams: [UInt32] = [], keptUserChanges: [String] = [], awaitedStreams: [DuckPlan] = []) {
        self.sinkVolumes = sinkVolumes
        self.sinkMuted = sinkMuted
        self.streams = streams
        self.unmuteStreams = unmuteStreams
        self.keptUserChanges = keptUserChanges
        self.awaitedStreams = awaitedStreams
    }

    public var isEmpty: Bool { sinkVolumes == nil && sinkMuted == nil && streams.isEmpty && unmuteStreams.isEmpty }
}

public enum RestorePolicy {
    /// How sure we are of the last value Herald set.
    public enum Knowledge: Sendable {
        /// The process that made the changes is closing them: `lastSet` holds the last volume it
        /// set on each ducked stream; a stream missing from it yielded to the user mid-ramp.
        case exact(lastSet: [UInt32: ChannelVolumes])
        /// Recovering a journal after a crash: a ducked stream may have been mid-ramp, so any
        /// volume between the ducked and the original level, channel by channel, counts as Herald's.
        case afterCrash
        /// The journal was written on an earlier run of the sound server: the sink came back at
        /// the server's defaults (or its saved state), a value nobody chose while Herald watched,
        /// so what Herald changed is put back whatever it shows now. The streams are all new and
        /// found by application name (`returningStreams`).
        case afterServerRestart

        var isAfterCrash: Bool {
            switch self {
            case .exact: false
            case .afterCrash, .afterServerRestart: true
            }
        }
    }

    /// Decides what to restore given the journal `entry` and what the server shows now.
    /// `sink` is nil when the sink is gone; streams not in `streams` have vanished and are forgotten.
    /// The sink's set volumes are compared as the sink reported them back (`entry.setVolumes`),
    /// so a device that rounds volumes does not make Herald's raise look like the user's.
    public static func actions(for entry: JournalEntry, sink: SinkState?, streams: [StreamState],
                               knowledge: Knowledge) -> RestoreActions {
        var actions = RestoreActions()
        if case .afterServerRestart = knowledge {
            // Whatever Herald changed, the volume too: a sink it only unmuted came back at the
            // server's default volume, and muted again there it would be in a state nobody chose.
            // What a person set while Herald held it is theirs, and put back as they set it.
            let volumes = entry.userVolumes ?? entry.originalVolumes, muted = entry.userMuted ?? entry.originalMuted
            if let sink, entry.setVolumes != nil || entry.unmuted || entry.userVolumes != nil, sink.volumes != volumes {
                actions.sinkVolumes = volumes
            }
            if let sink, entry.unmuted || entry.userMuted != nil, sink.muted != muted { actions.sinkMuted = muted }
            let returning = returningStreams(entry.ducks, among: streams)
            actions.streams = returning.streams
            actions.unmuteStreams = returning.unmuteStreams
            actions.keptUserChanges = returning.keptUserChanges
            actions.awaitedStreams = returning.awaitedStreams
            actions.streamsSeen = returning.streamsSeen
            return actions
        }
        if let sink {
            if let set = entry.setVolumes {
                if sink.volumes == set || (knowledge.isAfterCrash && roundedAlike(sink.volumes, set)) {
                    actions.sinkVolumes = entry.originalVolumes
                } else {
                    actions.keptUserChanges.append("sink volume \(sink.volumes) (Herald set \(set))")
                }
            }
            if entry.unmuted {
                if !sink.muted {
                    actions.sinkMuted = entry.originalMuted
                } else {
                    actions.keptUserChanges.append("sink mute (muted again meanwhile)")
                }
            }
        }
        let byIndex = Dictionary(streams.map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a })
        for duck in entry.ducks {
            guard let stream = byIndex[duck.streamIndex] else { continue }
            // After a server restart the indexes start again: the same index may now be another
            // application's stream, which is not Herald's to touch.
            if case .afterCrash = knowledge, stream.applicationName != duck.applicationName { continue }
            restore(stream, ducked: duck, settled: entry.streamsSettled == true, knowledge: knowledge, into: &actions)
        }
        return actions
    }

    /// After a server restart, the streams of the applications Herald had ducked, as they come
    /// back. The indexes start again, so a stream is the duck's when its application's name is
    /// the same (each stream and each duck matched once). A returning stream gets from the
    /// server's stream-restore the volume or mute it had when the server died, Herald's duck,
    /// so one muted (of a silenced duck) or between the ducked and the original volume is put
    /// back; anything else is the user's or the server's defaults, and kept. Ducks with no stream
    /// yet are `awaitedStreams`, for a later call as their applications reconnect.
    public static func returningStreams(_ ducks: [DuckPlan], among streams: [StreamState]) -> RestoreActions {
        var actions = RestoreActions()
        actions.streamsSeen = Set(streams.map(\.index))
        var unclaimed = streams.filter { !$0.isHerald && $0.applicationName != nil }.sorted { $0.index < $1.index }
        for duck in ducks {
            guard let name = duck.applicationName else {
                actions.keptUserChanges.append("stream #\(duck.streamIndex), whose program has no name, cannot be found again after the restart")
                continue
            }
            guard let position = unclaimed.firstIndex(where: { $0.applicationName == name }) else {
                actions.awaitedStreams.append(duck)
                continue
            }
            let stream = unclaimed.remove(at: position)
            // The actions name the stream as it is now; the duck keeps its old index in the journal.
            var returned = duck
            returned.streamIndex = stream.index
            restore(stream, ducked: returned, settled: false, knowledge: .afterServerRestart, into: &actions)
        }
        return actions
    }

    /// What puts `stream` back from `duck`, or what was kept of the user's.
    private static func restore(_ stream: StreamState, ducked duck: DuckPlan, settled: Bool, knowledge: Knowledge,
                                into actions: inout RestoreActions) {
        let name = duck.applicationName ?? "#\(duck.streamIndex)"
        if duck.silenced {
            if stream.muted {
                actions.unmuteStreams.append(duck.streamIndex)
            } else {
                actions.keptUserChanges.append("stream \(name) unmuted meanwhile")
            }
            return
        }
        if isHeralds(stream.volumes, duck: duck, settled: settled, knowledge: knowledge) {
            if stream.volumes != duck.original {
                actions.streams.append(.init(streamIndex: duck.streamIndex, current: stream.volumes,
                                             original: duck.original))
            }
        } else {
            actions.keptUserChanges.append("stream \(name) volume \(stream.volumes) (Herald set \(duck.ducked))")
        }
    }

    /// Within 1% per channel: a crash between the raise and journaling what the device reported
    /// back leaves the requested value in the journal, and devices round what they are given.
    static func roundedAlike(_ a: ChannelVolumes, _ b: ChannelVolumes) -> Bool {
        a.channels.count == b.channels.count
            && zip(a.channels, b.channels).allSatisfy { abs(Int($0.raw) - Int($1.raw)) <= Int(Volume.norm.raw) / 100 }
    }

    /// - Parameter settled: the journal says the ramps were over: after a crash only the ducked
    ///   volume itself is Herald's (found by the soak: a radio a person turned to 73% under a
    ///   duck from 100% to 30% was put back to 100% after a kill, as if a ramp had left it there).
    static func isHeralds(_ current: ChannelVolumes, duck: DuckPlan, settled: Bool = false, knowledge: Knowledge) -> Bool {
        switch knowledge {
        case .exact(let lastSet):
            return lastSet[duck.streamIndex] == current
        case .afterCrash where settled:
            return roundedAlike(current, duck.ducked)
        case .afterCrash, .afterServerRestart:
            guard current.channels.count == duck.original.channels.count,
                  current.channels.count == duck.ducked.channels.count else { return false }
            return zip(current.channels, zip(duck.ducked.channels, duck.original.channels)).allSatisfy {
                value, bounds in value >= bounds.0 && value <= bounds.1
            }
        }
    }
}
