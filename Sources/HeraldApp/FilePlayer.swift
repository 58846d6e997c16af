import Foundation
import HeraldCore
import Logging
import SoundFile

/// `herald play FILE`: decode, hold the safeguard, play, restore, log. One path, one log row.
public struct FilePlayer: Sendable {
    let context: HeraldContext
    /// How long to wait for another Herald process to release the safeguard.
    public var lockTimeout: Duration = .seconds(30)

    public init(context: HeraldContext) { self.context = context }

    /// Plays `path` with the safeguard and returns the logged row once everything is restored.
    ///
    /// Cancelling the calling task (Ctrl-C) fades the clip out, restores and logs `interrupted`.
    /// - Throws: after logging a `failed` row, when the file, the server, the sink or the restore failed.
    public func play(path: String, priority: Priority = .normal) async throws -> AnnouncementRecord {
        var record = AnnouncementRecord(source: .cli, priority: priority, bodyKind: "file", body: path,
                                        queuedAt: Date())
        record.clipSource = .file
        let requested = ContinuousClock.now
        let restoreFailures: [String]
        do {
            (record, restoreFailures) = try await playAndRestore(record, path: path, requested: requested)
        } catch {
            record.outcome = .failed
            record.error = "\(error)"
            record.finishedAt = Date()
            context.logger.error("play failed", metadata: ["file": "\(path)", "error": "\(error)"])
            do { try await context.database.record(record) } catch {
                context.logger.error("could not log the failed announcement: \(error)")
            }
            throw error
        }
        guard restoreFailures.isEmpty else { throw HeraldFailure.restoreIncomplete(restoreFailures) }
        return record
    }

    /// Everything up to the logged row; throws only when nothing was played.
    private func playAndRestore(_ record: AnnouncementRecord, path: String,
                                requested: ContinuousClock.Instant) async throws -> (AnnouncementRecord, [String]) {
        var record = record
        let clip = try SoundFileDecoder.decode(path: path)
        record.durationMilliseconds = clip.durationMilliseconds
        let sound = try await context.connectSound()
        let lock = try await ProcessLock.acquire(path: context.lockPath, timeout: lockTimeout)
        defer { lock.release() }
        let safeguard = context.safeguard(on: sound)
        try await context.recoverPendingJournal(with: safeguard)
        let sinkName = try await context.targetSinkName(on: sound)
        record.sink = sinkName
        switch try await safeguard.open(sinkName: sinkName) {
        case .suppressedMuted(let sink):
            record.mutedBefore = sink.muted
            record.volumeBefore = sink.volumes
            record.outcome = .suppressedMuted
            record.finishedAt = Date()
            try await context.database.record(record)
            return (record, [])
        case .opened(let before, let entry):
            record.mutedBefore = before.muted
            record.volumeBefore = before.volumes
            record.volumePlayed = entry.setVolumes ?? before.volumes
            record.streamsDucked = entry.ducks.count
        }
        record.startedAt = Date()
        let leadIn = context.configuration.safeguard.leadInMilliseconds
        let playCalled = ContinuousClock.now
        let playback: Result<PlaybackReport, any Error>
        do {
            playback = .success(try await sound.play(.clip(clip.withLeadingSilence(milliseconds: leadIn)),
                                                     onSink: sinkName, mediaRole: "event"))
        } catch {
            playback = .failure(error)
        }
        // Restore and log in a task of their own: this one may be cancelled (Ctrl-C), and GRDB and
        // the ramps honour cancellation; a cancelled restore would leave the sink raised.
        return try await Task { [record] in
            var record = record
            let restoration = await safeguard.close()
            let failures = restoration?.failures ?? []
            if let restoration { record.streamsDucked = restoration.entry.ducks.count }
            let report = try playback.get()
            record.finishedAt = Date()
            if report.startMilliseconds >= 0 {
                record.onsetLatencyMilliseconds = Self.milliseconds(playCalled - requested)
                    + report.startMilliseconds + leadIn
            }
            record.outcome = report.stoppedEarly ? .interrupted : .played
            if !failures.isEmpty { record.error = HeraldFailure.restoreIncomplete(failures).description }
            try await context.database.record(record)
            return (record, failures)
        }.value
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
