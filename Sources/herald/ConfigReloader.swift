import Foundation
import HeraldApp
import HeraldConfig
import Logging
import ServiceLifecycle
import UnixSignals

/// Reloads the config on SIGHUP and when the file changes. A config that does not check out is
/// reported and the old one keeps running.
struct ConfigReloader: Service {
    let daemon: AnnouncementDaemon
    let initial: HeraldContext
    let logger: Logger

    func run() async throws {
        guard let file = initial.configuration.file else { return }
        let reloads = AsyncStream<String>.makeStream()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in await UnixSignalsSequence(trapping: .sighup) { reloads.continuation.yield("SIGHUP") }
            }
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
            group.addTask {
                var current = initial
                for await reason in reloads.stream.cancelOnGracefulShutdown() {
                    current = await reload(current, file: file, reason: reason)
                }
            }
            try? await gracefulShutdown()
            reloads.continuation.finish()
            group.cancelAll()
        }
    }

    private func reload(_ current: HeraldContext, file: String, reason: String) async -> HeraldContext {
        do {
            let configuration = try await HeraldConfiguration.load(file: file, stateDirectory: current.configuration.stateDirectory)
            let next = try current.reloaded(with: configuration)
            await daemon.reload(next)
            logger.notice("config reloaded after \(reason)")
            return next
        } catch {
            logger.error("config reload after \(reason) failed; the old config keeps running: \(error)")
            return current
        }
    }

    static func modified(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}
