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
        if case .payment(let amount) = request.body { record.amount = amount }
        return record
    }

    /// Plays `rendered` inside an open session, filling in the row's sink figures. The chime and
    /// `leadIn` milliseconds of silence go first.
    func play(_ rendered: RenderedAudio, request: AnnouncementRequest, in session: SafeguardSession,
              record: inout AnnouncementRecord, requested: ContinuousClock.Instant, leadIn: Int) async -> Playback {
        record.clipSource = rendered.clipSource
        if let length = rendered.source.knownDurationMilliseconds { record.durationMilliseconds = length }
        record.sink = session.sinkName
        record.mutedBefore = session.before.muted
        record.volumeBefore = session.before.volumes
        record.volumePlayed = session.entry.setVolumes ?? session.before.volumes
        record.streamsDucked = session.entry.ducks.count
        record.startedAt = now()
        do {
            let (source, prefix) = try renderer.withPrefix(rendered, for: request, leadIn: leadIn)
            let playCalled = ContinuousClock.now
            let report = try await session.sound.play(source, onSink: session.sinkName, mediaRole: "event")
            if !report.stoppedEarly { markSaid(record.id) }
            return .success((report, prefix, (playCalled - requested).inMilliseconds))
        } catch {
            return .failure(error)
        }
    }

    /// Heard to its end: marked so before anything else (`SaidMark`), so a kill before its row's
    /// outcome is written does not make the next start say it again.
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
        record.clipSource = rendered.settledClipSource
        await rendered.afterPlayback?(!report.stoppedEarly)
    }

    /// Fills in a row that was not played because the sink is muted and the policy respects it.
    func markSuppressed(_ record: inout AnnouncementRecord, sink: SinkState) {
        record.sink = sink.name
        record.mutedBefore = sink.muted
        record.volumeBefore = sink.volumes
        record.outcome = .suppressedMuted
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
