import ArgumentParser
import HeraldApp
import HeraldCore

extension Herald {
    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Put back the sinks and streams left changed by a Herald process that died mid-announcement.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let context = try await options.makeContext()
            do {
                let restorations = try await JournalRestorer(context: context).restore()
                if restorations.isEmpty { print("nothing to restore: no pending journal") }
                for restoration in restorations { print(Self.describe(restoration)) }
            } catch {
                throw fail(error)
            }
        }

        /// One line per sink: what was put back, what was kept as the user's.
        static func describe(_ restoration: Safeguard.Restoration) -> String {
            let actions = restoration.actions
            var done: [String] = []
            if let volumes = actions.sinkVolumes { done.append("sink volume back to \(volumes)") }
            if let muted = actions.sinkMuted { done.append(muted ? "sink muted again" : "sink unmuted") }
            if !actions.streams.isEmpty { done.append("\(actions.streams.count) stream(s) un-ducked") }
            if !actions.unmuteStreams.isEmpty { done.append("\(actions.unmuteStreams.count) stream(s) unmuted") }
            for kept in actions.keptUserChanges { done.append("kept \(kept)") }
            for duck in actions.awaitedStreams {
                done.append("\(duck.applicationName ?? "a stream") not back since the server restarted (set it back by hand when it is)")
            }
            return "restored \(restoration.entry.sinkName): \(done.isEmpty ? "nothing needed changing" : done.joined(separator: "; "))"
        }
    }
}
