import ArgumentParser
import HeraldApp

extension Herald {
    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Put back a sink and streams left changed by a Herald process that died mid-announcement.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let context = try await options.makeContext()
            do {
                guard let restoration = try await JournalRestorer(context: context).restore() else {
                    print("nothing to restore: no pending journal")
                    return
                }
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
                print("restored \(restoration.entry.sinkName): \(done.isEmpty ? "nothing needed changing" : done.joined(separator: "; "))")
            } catch {
                throw fail(error)
            }
        }
    }
}
