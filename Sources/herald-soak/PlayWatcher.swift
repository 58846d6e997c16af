import AsyncHTTPClient
import Foundation

/// Every play the daemon reports on `/v1/events`, with its sink and times. The log keeps only an
/// announcement's last play; one said again (its sink unplugged, the default sink moved, a critical
/// one interrupting it) was also heard earlier, elsewhere, and only this record knows where.
final class PlayWatcher: @unchecked Sendable {
    /// One play of one announcement on its sinks (one per room), as the daemon's status showed it.
    struct Play {
        var id: String
        var requestID: String?
        var sinks: [String]
        var startedAt: Date
        /// When the status stopped showing it (a little late: the status comes 40 ms after a change).
        var finishedAt: Date?
    }

    private let herald: HeraldUnderTest
    private let lock = NSLock()
    private var plays: [Play] = []
    private var open: Int?

    init(herald: HeraldUnderTest) { self.herald = herald }

    var all: [Play] { lock.withLock { plays } }

    /// Follows the event stream until cancelled, connecting again whenever the daemon comes back.
    func run() async {
        while !Task.isCancelled {
            await follow()
            lock.withLock { close(at: Date()) }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    private func follow() async {
        let request = HTTPClientRequest(url: "http://127.0.0.1:\(herald.port)/v1/events")
        guard let response = try? await herald.http.execute(request, timeout: .hours(24)), response.status == .ok else { return }
        var pending = ""
        do {
            for try await chunk in response.body {
                pending += String(buffer: chunk)
                while let end = pending.range(of: "\n\n") {
                    let event = pending[..<end.lowerBound]
                    for line in event.split(separator: "\n") where line.hasPrefix("data: ") {
                        observe(String(line.dropFirst(6)), at: Date())
                    }
                    pending.removeSubrange(..<end.upperBound)
                }
            }
        } catch {
            // The daemon was killed or stopped: `run` closes the open play and connects again.
        }
    }

    /// Takes one status event: a new announcement, or the same one begun again, opens a play.
    func observe(_ json: String, at now: Date) {
        let daemon = ((try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any])?["daemon"] as? [String: Any]
        let current = daemon?["current"] as? [String: Any]
        lock.withLock {
            guard let id = current?["id"] as? String,
                  let sinks = daemon?["current_sinks"] as? [String] ?? (daemon?["current_sink"] as? String).map({ [$0] }),
                  let elapsed = daemon?["current_elapsed_milliseconds"] as? Int else {
                close(at: now)
                return
            }
            let startedAt = now.addingTimeInterval(-Double(elapsed) / 1000)
            func same(_ play: Play) -> Bool {
                play.id == id && play.sinks == sinks && abs(play.startedAt.timeIntervalSince(startedAt)) < 0.25
            }
            if let index = open, same(plays[index]) { return }
            close(at: now)
            // The same play seen again after the stream was connected anew: it goes on.
            if let index = plays.indices.last, same(plays[index]) {
                plays[index].finishedAt = nil
                open = index
                return
            }
            plays.append(Play(id: id, requestID: current?["request_id"] as? String, sinks: sinks, startedAt: startedAt))
            open = plays.count - 1
        }
    }

    private func close(at now: Date) {
        if let index = open { plays[index].finishedAt = now }
        open = nil
    }
}
