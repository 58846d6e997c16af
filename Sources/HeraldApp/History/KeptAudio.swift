import Foundation
import HeraldConfig
import HeraldCore
import HeraldStore
import Logging
import RuntimePaths
import SoundFile
import Synchronization

/// The audio each announcement played, kept for listening back on the admin page: `<id>.wav`
/// (16-bit PCM at the clip's rate) in the `audio` folder beside the database, private (0700,
/// 0600), indexed in `kept_audio`, for `history.audio_retention` and within
/// `history.audio_max_bytes`.
///
/// Written after the playback, in the background (`writeLater`): keeping it never delays a
/// first word. A failure to keep it is logged, never the announcement's.
public struct KeptAudio: Sendable {
    public let folder: String
    let database: AppDatabase
    let settings: HistorySettings
    let logger: Logger

    public init(context: HeraldContext) {
        folder = Self.folder(databasePath: context.configuration.databasePath)
        database = context.database
        settings = context.configuration.history
        logger = context.logger
    }

    /// `audio/` beside the database file.
    public static func folder(databasePath: String) -> String {
        ((databasePath as NSString).deletingLastPathComponent as NSString).appendingPathComponent("audio")
    }

    /// The file of row `id`; nil for an id that is not a plain row id (it comes from a URL).
    public func path(for id: String) -> String? {
        guard !id.isEmpty, id.count <= 64, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else { return nil }
        return (folder as NSString).appendingPathComponent(id + ".wav")
    }

    /// Whether audio is kept at all (`history.audio_retention` above zero).
    public var isOn: Bool { settings.audioRetention > .zero }

    /// Keeps `played` as row `id`'s audio, in the background, one write after another.
    /// - Parameters:
    ///   - chimeEnd: milliseconds of lead-in silence and chime before the body.
    ///   - playedMilliseconds: how much of it was heard when it was stopped early; nil when whole.
    func writeLater(_ played: PlayedAudio, id: String, chimeEnd: Int, now: Date, playedMilliseconds: Int?) {
        guard isOn else { return }
        let kept = self
        Self.writes.enqueue {
            await kept.write(played.clip(upTo: playedMilliseconds), id: id, chimeEnd: chimeEnd,
                             partial: playedMilliseconds != nil, now: now)
            await kept.prune(now: now)
        }
    }

    /// Waits for the writes queued so far, at most `limit` (a stalled disk must not hold up an
    /// exit): `herald serve` at a stop, a one-shot CLI run before it exits.
    public static func drained(within limit: Duration = .seconds(3)) async {
        let (ended, end) = AsyncStream<Void>.makeStream()
        // Whichever comes first ends the wait; the write left behind goes on while the process does.
        Task.detached {
            await writes.drained()
            end.finish()
        }
        Task.detached {
            try? await Task.sleep(for: limit)
            end.finish()
        }
        for await _ in ended {}
    }

    static let writes = BackgroundWrites()
    private static let failing = Mutex(false)

    private func write(_ clip: Clip, id: String, chimeEnd: Int, partial: Bool, now: Date) async {
        guard let path = path(for: id), clip.frameCount > 0 else { return }
        let folder = self.folder
        let written: Result<Int64, any Error> = await Self.offThePool {
            Result {
                try PrivateFiles.makeFolder(folder)
                try SoundFileEncoder.write(clip, to: path, format: .wav, mode: PrivateFiles.fileMode)
                return Int64((try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0)
            }
        }
        do {
            let bytes = try written.get()
            try await database.keepAudio(KeptAudioRecord(announcementID: id, bytes: bytes, durationMilliseconds: clip.durationMilliseconds,
                                                         chimeEndMilliseconds: min(chimeEnd, clip.durationMilliseconds),
                                                         partial: partial, keptAt: now))
            if Self.failing.withLock({ failing in defer { failing = false }; return failing }) { logger.notice("audio is kept for listening back again") }
        } catch {
            unlink(path)
            // Once, and again after it worked: a full disk would otherwise log it at every announcement.
            guard !Self.failing.withLock({ failing in defer { failing = true }; return failing }) else { return }
            logger.warning("could not keep the audio of announcement \(id) for listening back (said once until it works again): \(error)")
        }
    }

    /// Removes the audio kept longer than `history.audio_retention`, then the oldest past
    /// `history.audio_max_bytes`; run after every write and by the daily prune of the log.
    public func prune(now: Date) async {
        let retention = "kept longer than history.audio_retention (\(DurationText.format(settings.audioRetention)))"
        let cap = "the oldest audio is removed past history.audio_max_bytes (\(settings.audioMaxBytes) bytes)"
        let days = settings.retentionDays
        do {
            let gone = try await database.pruneKeptAudio(
                keptBefore: now.addingTimeInterval(-settings.audioRetention.inSeconds), maxBytes: settings.audioMaxBytes, now: now,
                forgetBefore: days > 0 ? now.addingTimeInterval(-Double(days) * 86_400) : nil, retention: retention, cap: cap)
            for id in gone { if let path = path(for: id) { unlink(path) } }
        } catch {
            logger.warning("could not prune the kept audio: \(error)")
        }
    }

    /// Runs `body` on a thread of its own: a stalled disk must not hold up the cooperative pool.
    static func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async { continuation.resume(returning: body()) }
        }
    }
}

/// Jobs run one after another in the background, and a way to wait for those queued so far.
final class BackgroundWrites: Sendable {
    private let last = Mutex<Task<Void, Never>?>(nil)

    func enqueue(_ job: @escaping @Sendable () async -> Void) {
        last.withLock { last in
            let before = last
            last = Task.detached(priority: .utility) {
                await before?.value
                await job()
            }
        }
    }

    func drained() async {
        let task = last.withLock { $0 }
        await task?.value
    }
}
