import Foundation
import HeraldConfig
import HeraldCore
import Logging
import PulseAudio
import SoundFile
import Speech

/// The one path every announcement takes: render, hold the safeguard, play, restore, log.
public struct Announcer: Sendable {
    let context: HeraldContext
    public let renderer: SpeechRenderer
    /// A connection kept open between announcements (a resident process); nil connects each time.
    let sound: PulseConnection?
    /// How long to wait for another Herald process to release the safeguard.
    public var lockTimeout: Duration = .seconds(30)

    public init(context: HeraldContext, sound: PulseConnection? = nil) {
        self.context = context
        self.sound = sound
        renderer = context.makeRenderer()
    }

    /// Announces `request` and returns the logged row once everything is restored.
    ///
    /// Cancelling the calling task (Ctrl-C) fades the audio out, restores and logs `interrupted`.
    /// - Throws: after logging a `failed` row, when the input, the server, the sink or the restore failed.
    public func announce(_ request: AnnouncementRequest) async throws -> AnnouncementRecord {
        let requested = ContinuousClock.now
        var record = Self.record(for: request)
        var restoreFailures: [String] = []
        do {
            // Rendering first: bad input fails before the sink is touched, and synthesis runs
            // while the safeguard ducks and raises.
            let rendered = try await render(request)
            let sound: PulseConnection
            if let resident = self.sound { sound = resident } else { sound = try await context.connectSound() }
            // Not cancellable half-way: a Ctrl-C during the open lets it finish, then the playback
            // stops at once and the close restores everything.
            let opening = try await Task { [context, lockTimeout] in
                try await SafeguardSession.open(context: context, sound: sound, priority: request.priority,
                                                lockTimeout: lockTimeout)
            }.value
            switch opening {
            case .suppressedMuted(let sink):
                try await logSuppressed(&record, sink: sink)
            case .opened(let session):
                let playback = await play(rendered, request: request, in: session, record: &record, requested: requested,
                                          leadIn: session.leadIn(context.configuration.safeguard))
                // Restore and log in a task of their own: this one may be cancelled (Ctrl-C), and
                // GRDB and the ramps honour cancellation; a cancelled restore would leave the sink raised.
                (record, restoreFailures) = try await Task { [record] in
                    var record = record
                    let failures = await session.close()?.failures ?? []
                    try await finish(&record, playback: playback, rendered: rendered)
                    if !failures.isEmpty { record.error = HeraldFailure.restoreIncomplete(failures).description }
                    try await context.store.record(record)
                    return (record, failures)
                }.value
            }
        } catch is CancellationError {
            // Ctrl-C before anything was changed or played: nothing to undo.
            record.outcome = .interrupted
            record.finishedAt = Date()
            let logged = record
            try? await Task { try await context.store.record(logged) }.value
            return record
        } catch {
            await logFailure(&record, error)
            throw error
        }
        guard restoreFailures.isEmpty else { throw HeraldFailure.restoreIncomplete(restoreFailures) }
        return record
    }

    /// A new log row for `request`, not yet played.
    public static func record(for request: AnnouncementRequest) -> AnnouncementRecord {
        var record = AnnouncementRecord(requestID: request.requestID, client: request.client, source: request.source,
                                        priority: request.priority, bodyKind: request.bodyKind, body: request.bodyText,
                                        language: request.language, voice: request.voice, queuedAt: Date())
        record.reminderID = request.reminder?.id
        record.signedBy = request.signedBy
        return record
    }

    /// Audio for `request`: the file, the cache, the voice pack or the synthesizer.
    public func render(_ request: AnnouncementRequest) async throws -> RenderedAudio {
        switch request.body {
        case .file(let path):
            let clip = try SoundFileDecoder.decode(path: path)
            return RenderedAudio(source: .clip(clip), clipSource: .file, spokenText: path)
        case .text(let text):
            return try await renderer.render(text: text, language: request.language, voice: request.voice)
        case .payment(let amount):
            return try await renderer.render(payment: amount, language: request.language)
        case .audioURL(let url):
            let clip = try await RemoteAudio(settings: context.configuration.audioURL, cache: context.clipCache).clip(for: url)
            return RenderedAudio(source: .clip(clip), clipSource: .url, spokenText: url)
        }
    }

    /// Plays `rendered` inside an open session, filling in the row's sink figures. The chime and
    /// `leadIn` milliseconds of silence go first.
    public func play(_ rendered: RenderedAudio, request: AnnouncementRequest, in session: SafeguardSession,
                     record: inout AnnouncementRecord, requested: ContinuousClock.Instant,
                     leadIn: Int) async -> Result<(PlaybackReport, prefixMilliseconds: Int, requestToPlay: Int), any Error> {
        record.clipSource = rendered.clipSource
        if case .clip(let clip) = rendered.source { record.durationMilliseconds = clip.durationMilliseconds }
        record.sink = session.sinkName
        record.mutedBefore = session.before.muted
        record.volumeBefore = session.before.volumes
        record.volumePlayed = session.entry.setVolumes ?? session.before.volumes
        record.streamsDucked = session.entry.ducks.count
        record.startedAt = Date()
        do {
            let prefix = Self.prefix(leadInMilliseconds: leadIn, chime: try chimeClip(for: request),
                                     format: rendered.source.format)
            let playCalled = ContinuousClock.now
            let report = try await session.sound.play(Self.prepend(prefix, to: rendered.source), onSink: session.sinkName,
                                                      mediaRole: "event")
            return .success((report, prefix.durationMilliseconds, (playCalled - requested).inMilliseconds))
        } catch {
            return .failure(error)
        }
    }

    /// Fills in the outcome of a playback; throws its error when it failed.
    public func finish(_ record: inout AnnouncementRecord,
                       playback: Result<(PlaybackReport, prefixMilliseconds: Int, requestToPlay: Int), any Error>,
                       rendered: RenderedAudio) async throws {
        let (report, prefix, requestToPlay) = try playback.get()
        record.finishedAt = Date()
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
    static func markSuppressed(_ record: inout AnnouncementRecord, sink: SinkState) {
        record.sink = sink.name
        record.mutedBefore = sink.muted
        record.volumeBefore = sink.volumes
        record.outcome = .suppressedMuted
        record.finishedAt = Date()
    }

    /// Fills in a failed row and says so in the log (every failure is logged).
    func markFailed(_ record: inout AnnouncementRecord, _ error: any Error) {
        record.outcome = .failed
        record.error = "\(error)"
        record.finishedAt = Date()
        context.logger.error("announcement failed", metadata: ["body": "\(record.body)", "error": "\(error)"])
    }

    func logSuppressed(_ record: inout AnnouncementRecord, sink: SinkState) async throws {
        Self.markSuppressed(&record, sink: sink)
        try await context.store.record(record)
    }

    func logFailure(_ record: inout AnnouncementRecord, _ error: any Error) async {
        markFailed(&record, error)
        let logged = record
        // In a task of its own: the caller may be cancelled (Ctrl-C), and GRDB honours cancellation.
        do { try await Task { [context] in try await context.store.record(logged) }.value } catch {
            context.logger.error("could not log the failed announcement: \(error)")
        }
    }

    /// The chime asked for, or the priority's; nil for none.
    private func chimeClip(for request: AnnouncementRequest) throws -> Clip? {
        let configuration = context.configuration
        let path: String?
        if let name = request.chime {
            path = name.lowercased() == "none" ? nil : HeraldConfiguration.chimePath(name, in: configuration.soundsDirectory)
        } else {
            path = configuration.chimes[request.priority]
        }
        return try path.map { try DecodedClips.shared.clip(path: $0) }
    }

    /// Lead-in silence, then the chime, in the body's format.
    static func prefix(leadInMilliseconds: Int, chime: Clip?, format: AudioFormat) -> Clip {
        let silence = [Float](repeating: 0, count: format.sampleRate * leadInMilliseconds / 1000 * format.channelCount)
        var samples = silence
        if let chime {
            samples += chime.converted(to: format).samples
            // A short breath between the chime and the first word.
            samples += [Float](repeating: 0, count: format.sampleRate * 80 / 1000 * format.channelCount)
        }
        return Clip(sampleRate: format.sampleRate, channelCount: format.channelCount, samples: samples)
    }

    static func prepend(_ prefix: Clip, to source: AudioSource) -> AudioSource {
        guard !prefix.samples.isEmpty else { return source }
        switch source {
        case .clip(let clip):
            var joined = clip
            joined.samples = prefix.samples + clip.samples
            return .clip(joined)
        case .stream(let format, let chunks):
            let (stream, continuation) = AsyncThrowingStream<[Float], any Error>.makeStream()
            continuation.yield(prefix.samples)
            let forwarder = Task {
                do {
                    for try await chunk in chunks { continuation.yield(chunk) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in forwarder.cancel() }
            return .stream(format, stream)
        }
    }
}
