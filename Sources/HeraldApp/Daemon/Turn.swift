import Foundation
import HeraldConfig
import HeraldCore
import HeraldStore
import Speech
import Synchronization

/// What one announcement's turn works with, taken once when the turn begins: a reload during one
/// of its awaits applies from the next turn on, so an announcement is never rendered with one
/// config and played with another. The daemon (`AnnouncementDaemon.turn`) drives it: render,
/// open or reuse the safeguard session, play, fill in the row; the daemon logs it.
struct Turn: Sendable {
    let context: HeraldContext
    let renderer: AnnouncementRenderer
    let now: @Sendable () -> Date

    /// What a playback gives back: the server's report, the silence and chime played before the
    /// body, and the time from the turn's start to the play call.
    typealias Playback = Result<(PlaybackReport, prefixMilliseconds: Int, requestToPlay: Int), any Error>

    init(context: HeraldContext, now: @escaping @Sendable () -> Date) {
        self.context = context
        self.now = now
        renderer = AnnouncementRenderer(context: context)
    }

    var configuration: HeraldConfiguration { context.configuration }

    /// A new log row for `request`, not yet played.
    static func record(for request: AnnouncementRequest, at now: Date) -> AnnouncementRecord {
        var record = AnnouncementRecord(requestID: request.requestID, client: request.client, source: request.source,
                                        priority: request.priority, bodyKind: request.bodyKind, body: request.bodyText,
                                        language: request.language, voice: request.voice, queuedAt: now)
        record.reminderID = request.reminder?.id
        record.signedBy = request.signedBy
        record.signatureMAC = request.signatureMAC
        record.requestedRooms = request.rooms
        record.replayOf = request.replayOf
        if case .payment(let amount) = request.body { record.amount = amount }
        return record
    }

    /// The rooms `request` goes to: the ones it names, else its priority's, else the house's
    /// default. A name a reload removed since it was accepted is left out; with none left, the
    /// default rooms.
    func rooms(for request: AnnouncementRequest) -> [Room] {
        let house = configuration.rooms
        let known = request.rooms?.filter { house.knownNames.contains($0) }
        if let rooms = try? house.rooms(requested: known?.isEmpty == false ? known : nil, priority: request.priority), !rooms.isEmpty {
            return rooms
        }
        return house.rooms
    }

    /// The rooms a queued entry's next turn plays in: those quiet hours left it for, when they
    /// left it some (those still in the house: none, when a reload removed them all; never the
    /// others, which heard it already), else every room of its request.
    func rooms(for item: AnnouncementDaemon.Queued) -> [Room] {
        guard let names = item.rooms else { return rooms(for: item.request) }
        return configuration.rooms.rooms.filter { names.contains($0.name) }
    }

    /// Each room's playback, for the row's per-room outcomes.
    typealias RoomResults = [(room: SafeguardSession.HeldRoom, result: Result<PlaybackReport, any Error>)]

    /// Plays `rendered` in `rooms` of an open session, all in step, filling in the row's sink
    /// figures (the first room's). The chime and `leadIn` milliseconds of silence go first. The
    /// playback is the first room's that played, or, when none did, the first room's error.
    /// - Parameter isLastPart: false when quiet hours hold the row for other rooms after this
    ///   turn: it is then not marked heard (`SaidMark`), since a restart must still say it there.
    ///   The row `holdForLaterRooms` writes after the turn stands in for the mark: a kill before
    ///   that write makes the next start say it again in this turn's rooms too.
    func play(_ rendered: RenderedAudio, request: AnnouncementRequest, in session: SafeguardSession,
              rooms: [SafeguardSession.HeldRoom], record: inout AnnouncementRecord, requested: ContinuousClock.Instant,
              leadIn: Int, isLastPart: Bool = true) async -> (Playback, RoomResults) {
        record.clipSource = rendered.clipSource
        if let length = rendered.source.knownDurationMilliseconds { record.durationMilliseconds = length }
        let first = rooms[0]
        record.sink = first.sinkName
        record.mutedBefore = first.before.muted
        record.volumeBefore = first.before.volumes
        record.volumePlayed = first.entry.setVolumes ?? first.before.volumes
        var ducked: [String: Int] = [:]
        for room in rooms { ducked[room.sinkName] = room.entry.ducks.count }
        record.streamsDucked = ducked.values.reduce(0, +)
        record.startedAt = now()
        do {
            let (prefixed, prefix) = try renderer.withPrefix(rendered, for: request, leadIn: leadIn)
            // What is handed to the player is collected as it goes, to be kept for listening back.
            let kept = KeptAudio(context: context)
            var (source, played): (AudioSource, PlayedAudio?) = (prefixed, nil)
            if kept.isOn { (source, played) = PlayedAudio.recording(prefixed) }
            let playCalled = ContinuousClock.now
            // Rooms sharing a sink hear one stream.
            var sinks: [String] = []
            for room in rooms where !sinks.contains(room.sinkName) { sinks.append(room.sinkName) }
            // One stream per sink: the first room on a sink gives its speaker's delay.
            var offsets: [String: Duration] = [:]
            for room in rooms where offsets[room.sinkName] == nil { offsets[room.sinkName] = room.room.latencyOffset }
            let id = record.id
            // Marked just before every room hears its last sample (a room whose speaker went
            // away hears it later: not said to its end yet).
            let results = await session.sound.play(source, onSinks: sinks, mediaRole: "event", latencyOffsets: offsets) { whole in
                if whole && isLastPart { markSaid(id) }
            }
            let bySink = Dictionary(uniqueKeysWithValues: zip(sinks, results))
            let roomResults: RoomResults = rooms.map { ($0, bySink[$0.sinkName]!) }
            let reports = results.compactMap { try? $0.get() }
            guard let report = reports.first else {
                // No room played: the first room's error says what happened (a lost server, a cancel).
                let errors = results.compactMap { result -> (any Error)? in if case .failure(let error) = result { error } else { nil } }
                return (.failure(errors.first ?? CancellationError()), roomResults)
            }
            if let played {
                // Written after the last sample, in the background: never before a first word.
                kept.writeLater(played, id: id, chimeEnd: prefix, now: now(),
                                playedMilliseconds: report.stoppedEarly ? max(0, report.totalMilliseconds - report.startMilliseconds) : nil)
            }
            let heardFirst = reports.map(\.startMilliseconds).filter { $0 >= 0 }.min() ?? report.startMilliseconds
            var combined = report
            combined.startMilliseconds = heardFirst
            return (.success((combined, prefix, (playCalled - requested).inMilliseconds)), roomResults)
        } catch {
            return (.failure(error), [])
        }
    }

    /// One outcome per room for a house with `rooms:` (nil for the one room of a house without):
    /// the rooms played, and those not opened or left out.
    func roomOutcomes(_ results: RoomResults, notPlayed: [RoomOutcome], playback: Playback) -> [RoomOutcome]? {
        guard configuration.configuredRooms != nil else { return nil }
        let (prefix, requestToPlay) = (try? playback.get()).map { ($0.prefixMilliseconds, $0.requestToPlay) } ?? (0, 0)
        let played = results.map { room, result in
            var outcome = Self.outcome(of: room, result, requestToPlay: requestToPlay, prefix: prefix)
            // The receipt: the volume it played at, and the noise it was raised over.
            outcome.volumePercent = (room.entry.setVolumes ?? room.before.volumes).loudest.percent
            outcome.noiseFloorDBFS = room.noise?.floorDBFS
            outcome.noiseGainDB = room.noise?.gainDB
            return outcome
        }
        return ordered(played + notPlayed)
    }

    private static func outcome(of room: SafeguardSession.HeldRoom, _ result: Result<PlaybackReport, any Error>,
                                requestToPlay: Int, prefix: Int) -> RoomOutcome {
        switch result {
        case .success(let report):
            RoomOutcome(room: room.room.name, sink: room.sinkName, outcome: report.stoppedEarly ? .interrupted : .played,
                        onsetLatencyMilliseconds: report.startMilliseconds >= 0 ? requestToPlay + report.startMilliseconds + prefix : nil)
        case .failure(let error) where Self.speakerWentAway(result):
            RoomOutcome(room: room.room.name, sink: room.sinkName, outcome: .missed,
                        error: "its speaker went away while it played (\(error))")
        case .failure(let error):
            RoomOutcome(room: room.room.name, sink: room.sinkName, outcome: error is CancellationError ? .interrupted : .failed,
                        error: "\(error)")
        }
    }

    /// True when a room's playback ended because its sink (or the server) went away: said there
    /// again when it is back.
    static func speakerWentAway(_ result: Result<PlaybackReport, any Error>) -> Bool {
        guard case .failure(let error as SoundSystemError) = result else { return false }
        return error.meansWait || error.isSinkGone
    }

    /// Room names in the house's order.
    func ordered(names: [String]) -> [String] { inHouseOrder(names, room: { $0 }) }

    /// `outcomes` in the house's order of rooms; nil for the one room of a house without `rooms:`.
    func ordered(_ outcomes: [RoomOutcome]) -> [RoomOutcome]? {
        guard configuration.configuredRooms != nil else { return nil }
        return inHouseOrder(outcomes, room: \.room)
    }

    /// `items` sorted by their room's place in the config's `rooms:`.
    private func inHouseOrder<Item>(_ items: [Item], room: (Item) -> String) -> [Item] {
        let order = configuration.rooms.rooms.map(\.name)
        return items.sorted { (order.firstIndex(of: room($0)) ?? 0) < (order.firstIndex(of: room($1)) ?? 0) }
    }

    /// About to be heard to its end: marked so before anything else (`SaidMark`), so a kill
    /// before its row's outcome is written does not make the next start say it again.
    private func markSaid(_ id: String) {
        do {
            try SaidMark(databasePath: context.configuration.databasePath).mark(id)
            if Self.markFailing.withLock({ failing in defer { failing = false }; return failing }) { context.logger.notice("announcements are marked heard again") }
        } catch {
            // Once, and again after it worked: a full disk would otherwise log it at every announcement.
            guard !Self.markFailing.withLock({ failing in defer { failing = true }; return failing }) else { return }
            context.logger.warning("could not mark announcement \(id) heard (a crash before its row is written says it again): \(error)")
        }
    }

    private static let markFailing = Mutex(false)

    /// Fills in the outcome of a playback; throws its error when it failed.
    func finish(_ record: inout AnnouncementRecord, playback: Playback, rendered: RenderedAudio) async throws {
        let (report, prefix, requestToPlay) = try playback.get()
        record.finishedAt = now()
        if report.startMilliseconds >= 0 {
            record.onsetLatencyMilliseconds = requestToPlay + report.startMilliseconds + prefix
        }
        if record.durationMilliseconds == nil {
            record.durationMilliseconds = max(0, report.totalMilliseconds - report.startMilliseconds - prefix)
        }
        record.outcome = report.stoppedEarly ? .interrupted : .played
        if record.outcome == .played, let rooms = record.rooms, let overall = RoomOutcome.overall(rooms) { record.outcome = overall }
        record.clipSource = rendered.settledClipSource
        await rendered.afterPlayback?(!report.stoppedEarly)
    }

    /// Fills in a row that was not played because the sink is muted and the policy respects it
    /// (in every room of this turn: `rooms` says why each was left out).
    func markSuppressed(_ record: inout AnnouncementRecord, sink: SinkState, rooms: [RoomOutcome]) {
        record.sink = sink.name
        record.mutedBefore = sink.muted
        record.volumeBefore = sink.volumes
        record.rooms = ordered((record.rooms ?? []) + rooms)
        // Said in some rooms by an earlier turn (quiet hours held it for these): partial.
        record.outcome = record.rooms?.contains { $0.outcome == .played } == true ? .partial : .suppressedMuted
        record.finishedAt = now()
    }

    /// Fills in a failed row and says so in the log (every failure is logged).
    func markFailed(_ record: inout AnnouncementRecord, _ error: any Error) {
        record.outcome = .failed
        record.error = "\(error)"
        record.finishedAt = now()
        context.logger.error("announcement failed", metadata: ["body": "\(record.body)", "error": "\(error)"])
    }
}
