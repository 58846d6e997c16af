import Foundation
import HeraldConfig
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

/// Reloads the config on SIGHUP and when the file changes. A config that does not check out is
/// reported and the old one keeps running. With no file it waits for shutdown (a service that
/// returns would end the whole daemon) and answers SIGHUP with a note, never by dying of it.
///
/// The file is read and checked on a thread of its own, never on the cooperative pool (two
/// threads on two cores: a long check there would hold up the API and the queue), and the wait
/// for it ends at shutdown: SIGTERM is never held up by a reload. Reload requests that arrive
/// while one runs collapse into one more reload, which reads the file as it is then. A read is
/// bounded: the file is at most 1 MiB and every check is linear in it (a chain or a ring of
/// thousands of groups once took 23 s and held up the next reload), so the newest file takes
/// effect within a read or two. A read is not cut short for a newer one: its thread cannot be
/// stopped, and one reader at a time keeps a burst of SIGHUPs from starting many.
///
/// Why not swift-configuration's `ReloadingFileProvider`: it swaps in each new snapshot of the file
/// by itself, value by value, while Herald must check the whole file (every key, every reminder,
/// the files it names) before anything of it takes effect, and keep the old config whole when the
/// new one fails. A reload here is one step: read, check, then swap one `HeraldContext`.
struct ConfigReloader: Service {
    let daemon: AnnouncementDaemon
    let reminders: ReminderService
    let calendars: CalendarService
    let live: LiveContext
    let logger: Logger

    func run() async throws {
        let file = live.value.configuration.file
        let reloads = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(1))
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in await UnixSignalsSequence(trapping: .sighup) { reloads.continuation.yield("SIGHUP") }
            }
            if let file {
                group.addTask {
                    // A poll, not inotify: editors replace files in ways a watch misses; 2 s is prompt enough.
                    var seen = Self.modified(file)
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .seconds(2))
                        let now = Self.modified(file)
                        if now != seen {
                            seen = now
                            reloads.continuation.yield("a change to \(file)")
                        }
                    }
                }
            }
            group.addTask {
                for await reason in reloads.stream.cancelOnGracefulShutdown() {
                    guard let file else {
                        logger.notice("\(reason): no config file, the built-in defaults stay in force")
                        continue
                    }
                    await reload(file: file, reason: reason)
                }
            }
            try? await gracefulShutdown()
            reloads.continuation.finish()
            group.cancelAll()
        }
    }

    private func reload(file: String, reason: String) async {
        let current = live.value
        do {
            let configuration = try await Self.load(file: file, stateDirectory: current.configuration.stateDirectory)
            try Task.checkCancellation()
            let next = try current.reloaded(with: configuration)
            live.replace(with: next)
            await daemon.configChanged()
            // Another Piper voice or program: its process loads now, not at the next payment
            // (bounded by its load timeout; it is not waited for).
            Task { await next.configuration.speech.makeSynthesizer(logger: logger).prepare() }
            await reminders.configChanged()
            await calendars.configChanged()
            logger.notice("config reloaded after \(reason)")
        } catch is CancellationError {
            logger.notice("config reload after \(reason) abandoned: the daemon is stopping")
        } catch {
            logger.error("config reload after \(reason) failed; the old config keeps running: \(error)")
        }
    }

    /// `HeraldConfiguration.read` on a thread of its own. Cancelling the waiting task ends the
    /// wait at once with `CancellationError` (the thread finishes its bounded check and its
    /// result is dropped).
    static func load(file: String, stateDirectory: String) async throws -> HeraldConfiguration {
        let outcome = Outcome()
        return try await withTaskCancellationHandler {
            Thread.detachNewThread {
                outcome.finish(Result { try HeraldConfiguration.read(file: file, stateDirectory: stateDirectory) })
            }
            return try await outcome.value.get()
        } onCancel: {
            outcome.finish(.failure(CancellationError()))
        }
    }

    /// The first result handed to it, whether it comes before or after the wait starts.
    private final class Outcome: Sendable {
        private struct State {
            var result: Result<HeraldConfiguration, any Error>?
            var waiter: CheckedContinuation<Result<HeraldConfiguration, any Error>, Never>?
        }

        private let state = Mutex(State())

        func finish(_ result: Result<HeraldConfiguration, any Error>) {
            let waiter = state.withLock { state -> CheckedContinuation<Result<HeraldConfiguration, any Error>, Never>? in
                guard state.result == nil else { return nil }
                state.result = result
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: result)
        }

        var value: Result<HeraldConfiguration, any Error> {
            get async {
                await withCheckedContinuation { continuation in
                    let ready = state.withLock { state in
                        if state.result == nil { state.waiter = continuation }
                        return state.result
                    }
                    if let ready { continuation.resume(returning: ready) }
                }
            }
        }
    }

    static func modified(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}
