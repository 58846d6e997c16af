import Foundation
import HeraldCore

extension KeptAudio {
    /// What there is to hear of one row.
    public enum Lookup: Sendable {
        /// Its audio, at `path`.
        case kept(path: String, KeptAudioRecord)
        /// It was kept and is gone: `goneAt` and `goneBecause` say when and why.
        case gone(KeptAudioRecord)
        /// None was ever kept; `reason` says why, in an admin's words.
        case never(reason: String)
    }

    /// The audio of `row` now. Audio past its retention, or whose file went missing, is marked
    /// gone here at once, without waiting for the next prune.
    public func lookup(_ row: AnnouncementRecord, now: Date) async throws -> Lookup {
        guard let record = try await database.keptAudio(ids: [row.id])[row.id] else {
            return .never(reason: Self.whyNone(row, on: isOn))
        }
        switch state(of: record, now: now) {
        case .kept(let path, let record):
            return .kept(path: path, record)
        case .gone(var gone):
            if record.goneAt == nil {
                // Noted at once: the next prune does not count it again.
                try? await database.markKeptAudioGone(id: row.id, at: now, because: gone.goneBecause ?? "")
                if let path = path(for: row.id) { unlink(path) }
                gone.goneAt = now
            }
            return .gone(gone)
        case .never(let reason):
            return .never(reason: reason)
        }
    }

    /// The audio of each of `ids` as the history shows it (kept or gone); ids with none are
    /// left out. Only reads: the marks are made by `lookup` and the prunes.
    public func states(ids: [String], now: Date) async throws -> [String: Lookup] {
        try await database.keptAudio(ids: ids).mapValues { state(of: $0, now: now) }
    }

    private func state(of record: KeptAudioRecord, now: Date) -> Lookup {
        if record.goneAt != nil { return .gone(record) }
        var gone = record
        gone.goneAt = now
        if !isOn || record.keptAt < now.addingTimeInterval(-settings.audioRetention.inSeconds) {
            gone.goneBecause = "kept longer than history.audio_retention (\(DurationText.format(settings.audioRetention)))"
            return .gone(gone)
        }
        guard let path = path(for: record.announcementID), FileManager.default.fileExists(atPath: path) else {
            gone.goneBecause = "its file is no longer in \(folder)"
            return .gone(gone)
        }
        return .kept(path: path, record)
    }

    /// Why a row has no audio kept.
    static func whyNone(_ row: AnnouncementRecord, on: Bool) -> String {
        switch row.outcome {
        case nil:
            return "it has not been said yet"
        case .played?, .interrupted?, .partial?, .late?:
            return on ? "its audio was not kept (said before audio was kept, or it could not be written: see the daemon's log)"
                : "no audio is kept (history.audio_retention is 0)"
        case let outcome?:
            return "nothing was played (\(outcome.rawValue))"
        }
    }
}
