import Foundation
import HeraldApp
import HeraldConfig
import Logging
import ServiceLifecycle
import UnixSignals

/// Reloads the config on SIGHUP and when the file changes. A config that does not check out is
/// reported and the old one keeps running. With no file it waits for shutdown (a service that
/// returns would end the whole daemon) and answers SIGHUP with a note, never by dying of it.
struct ConfigReloader: Service {
    let daemon: AnnouncementDaemon
    let reminders: ReminderService
    let live: LiveContext
    let logger: Logger

    func run() async throws {
        let file = live.value.configuration.file
        let reloads = AsyncStream<String>.makeStream()
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
            let configuration = try await HeraldConfiguration.load(file: file, stateDirectory: current.configuration.stateDirectory)
            let next = try current.reloaded(with: configuration)
            live.replace(with: next)
            await daemon.reload(next)
            // Another Piper voice or program: its process loads now, not at the next payment.
            Task { await next.configuration.speech.makeSynthesizer(logger: logger).prepare() }
            await reminders.configChanged()
            logger.notice("config reloaded after \(reason)")
        } catch {
            logger.error("config reload after \(reason) failed; the old config keeps running: \(error)")
        }
    }

    static func modified(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}
