import AsyncHTTPClient
import Foundation
import HeraldConfig
import HeraldCore
import HeraldStore
import Logging
import PulseAudio
import RuntimePaths
import Speech

/// What every command works with: the validated config, the database and a logger.
public struct HeraldContext: Sendable {
    public let configuration: HeraldConfiguration
    /// The SQLite file (in memory when a tolerant context could not open it): the clip cache index.
    public let database: AppDatabase
    /// The announcement log, safe against a failing disk (`AnnouncementStore`).
    public let store: AnnouncementStore
    /// The restore journal, durable before the sink is touched (`RestoreJournalStore`).
    public let journal: RestoreJournalStore
    public let logger: Logger
    /// True for the daemon: an unusable database degrades it instead of stopping it.
    let tolerant: Bool
    /// The runtime folder this process works in: the safeguard lock, the journal's and the log's
    /// fallbacks.
    public let runtime: RuntimeLocation
    /// The daemon's one HTTP client (`audio_url` fetches, escalation webhooks): made and shut down
    /// by `herald serve` (`HTTPClient.Configuration.herald`), kept across reloads; nil in a
    /// process that fetches nothing.
    public var httpClient: HTTPClient?
    /// The rooms' volumes as buttons set them, kept across reloads (`ButtonService` reads them in).
    public let roomVolumes: RoomVolumes
    /// The rooms' noise as their microphones hear it (`NoiseMonitor`), kept across reloads.
    public private(set) var roomNoise: RoomNoise

    /// - Parameters:
    ///   - tolerant: when the database cannot be opened, log in memory (and say so in
    ///     `/v1/status`) instead of throwing: the log is never a reason not to speak.
    ///   - runtime: the runtime folder (this process's unless a test gives one of its own).
    public init(configuration: HeraldConfiguration, logger: Logger, tolerant: Bool = false,
                runtime: RuntimeLocation = .process) throws {
        self.configuration = configuration
        self.logger = logger
        self.tolerant = tolerant
        self.runtime = runtime
        roomVolumes = RoomVolumes()
        roomNoise = RoomNoise()
        let opened = Result { try AppDatabase(path: configuration.databasePath) }
        if case .failure(let error) = opened, !tolerant {
            throw HeraldFailure.io("cannot open the database \(configuration.databasePath): \(error)")
        }
        database = (try? opened.get()) ?? AnnouncementStore.inMemoryDatabase()
        let journalFallback = runtime.safeguardLock + ".journal"
        // The daemon's rows wait in the runtime folder while the database cannot take them: a
        // crash then does not lose them (a command's own rows are in memory, as it waits for them).
        let overflow = tolerant
            ? runtime.folder + "/log-overflow-" + RuntimePaths.shortHash(configuration.databasePath)
            : nil
        store = AnnouncementStore(path: configuration.databasePath, opened: opened, overflowPrefix: overflow, logger: logger)
        journal = RestoreJournalStore(databasePath: configuration.databasePath, fallback: journalFallback,
                                      database: try? opened.get(), logger: logger)
    }

    /// This context with a reloaded config; the open database is kept when its path is the same.
    public func reloaded(with configuration: HeraldConfiguration) throws -> HeraldContext {
        var next: HeraldContext
        if configuration.databasePath == self.configuration.databasePath {
            next = HeraldContext(configuration: configuration, logger: logger, database: database, store: store, journal: journal,
                                 tolerant: tolerant, runtime: runtime, roomVolumes: roomVolumes, roomNoise: roomNoise)
        } else {
            next = try HeraldContext(configuration: configuration, logger: logger, tolerant: tolerant, runtime: runtime)
            next.roomVolumes.replace(roomVolumes.all)
            // A new database is not a new room: what the microphones heard stays.
            next.roomNoise = roomNoise
        }
        next.httpClient = httpClient
        return next
    }

    private init(configuration: HeraldConfiguration, logger: Logger, database: AppDatabase, store: AnnouncementStore,
                 journal: RestoreJournalStore, tolerant: Bool, runtime: RuntimeLocation, roomVolumes: RoomVolumes,
                 roomNoise: RoomNoise) {
        self.roomVolumes = roomVolumes
        self.roomNoise = roomNoise
        self.configuration = configuration
        self.runtime = runtime
        self.logger = logger
        self.database = database
        self.store = store
        self.journal = journal
        self.tolerant = tolerant
    }

    /// Where the safeguard lock lives: one per user and sound server, whatever the config or
    /// database (`RuntimeFolder`); its folder is created private, or checked to be ours.
    /// - Throws: `HeraldFailure.io` when the folder is another user's or cannot be made.
    public var lockPath: String {
        get throws {
            let path = runtime.safeguardLock
            try RuntimeFolder.prepare((path as NSString).deletingLastPathComponent, userID: runtime.userID)
            return path
        }
    }

    /// The clip cache in the configured folder, indexed in this database.
    public var clipCache: ClipCache {
        ClipCache(directory: configuration.cache.directory, maxBytes: configuration.cache.maxBytes, index: database)
    }

    /// Text and payments to audio, with this config's engine, voices, packs and cache.
    public func makeRenderer() -> SpeechRenderer {
        SpeechRenderer(settings: configuration.speech, synthesizer: configuration.speech.makeSynthesizer(logger: logger),
                       cache: clipCache, logger: logger)
    }

    /// A fresh connection to the sound server.
    public func connectSound() async throws -> PulseConnection {
        try await PulseConnection(logger: logger)
    }

    /// The safeguard over `sound`, with this process's settings.
    /// - Parameter quietTarget: during quiet hours with `play_quieter`, the target volume (a sink
    ///   is raised only to it; never lowered, as at any other time).
    public func safeguard(on sound: any SoundSystem, quietTarget: Volume? = nil) -> Safeguard {
        safeguard(on: sound, settings: configuration.safeguard, quietTarget: quietTarget)
    }

    /// The safeguard over `sound` with a room's `settings` (the house's with its overrides).
    public func safeguard(on sound: any SoundSystem, settings: SafeguardSettings, quietTarget: Volume? = nil) -> Safeguard {
        var settings = settings
        if let quietTarget {
            settings.targetVolume = min(settings.targetVolume, quietTarget)
            settings.minVolume = min(settings.minVolume, settings.targetVolume)
        }
        return Safeguard(sound: sound, journal: journal, settings: settings,
                         clock: ContinuousClock(), logger: logger, processID: getpid())
    }

    /// The sink to use now: the configured one, else the server's default (DESIGN.md rule 1).
    public func targetSinkName(on sound: any SoundSystem) async throws -> String {
        if let name = configuration.safeguard.sinkName { return name }
        guard let name = try await sound.serverInfo().defaultSinkName, !name.isEmpty else {
            throw SoundSystemError.noDefaultSink
        }
        return name
    }

    /// Restores the journal left by a process that died mid-announcement, every sink it changed;
    /// run before anything else touches a sink (`safeguard` works on `sound`). Throws when part of
    /// it could not be restored. Streams ducked before a server restart that have not come back yet
    /// are watched for in the background and put back as they return (`ReturningStreams`).
    @discardableResult
    public func recoverPendingJournal(with safeguard: Safeguard, on sound: any SoundSystem) async throws -> [Safeguard.Restoration] {
        let restorations = try await safeguard.recoverPending()
        for restoration in restorations { HeraldMetrics.restored(restoration, replayingJournal: true) }
        let failures = restorations.flatMap(\.failures)
        guard failures.isEmpty else { throw HeraldFailure.restoreIncomplete(failures) }
        let awaited = restorations.flatMap(\.actions.awaitedStreams), seen = Set(restorations.flatMap(\.actions.streamsSeen))
        guard !awaited.isEmpty else { return restorations }
        // Only the daemon lives long enough to wait for them. The lock's path was made by
        // whoever holds the lock now, so it cannot fail here.
        if tolerant, let lockPath = try? lockPath {
            logger.notice("waiting up to \(ReturningStreams.window) for \(awaited.count) stream(s) Herald ducked to come back")
            let watch = ReturningStreams(sound: sound, lockPath: lockPath, logger: logger)
            Task { await watch.watch(awaited, seen: seen) }
        } else {
            let names = awaited.map { $0.applicationName ?? "#\($0.streamIndex)" }.joined(separator: ", ")
            logger.warning("streams Herald ducked before the server restarted are not back, and only herald serve waits for them: \(names); they come back as the server saved them, ducked or muted")
        }
        return restorations
    }
}
