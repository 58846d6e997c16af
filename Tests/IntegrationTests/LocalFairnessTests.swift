import Foundation
import Testing

/// Issue 42: a local process flooding the daemon must not keep the till's payment from being said.
extension OnTheTestSink {
@Suite final class LocalFairnessTests {
    init() throws {
        try SoundServer.require()
        try SoundServer.setSink(volumes: ["60%"], muted: false)
    }

    /// 300 high texts from one local process, then the till's high payment (both loopback, no
    /// tokens: one client): the payment is said next, well within its max age, not after the
    /// flood ("older than its max age" before).
    @Test func aTillsPaymentIsSaidAheadOfAFloodOfHighTexts() async throws {
        let (harness, port) = try HeraldHarness.listening("""
              rate_per_minute: 1000
            priorities:
              high:
                max_age: 60s
            """)
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let base = daemon.base
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<300 {
                group.addTask {
                    try await Daemon.requestAsync("POST", base + "/v1/announcements",
                                                  #"{"text": "Order number \#(index) is ready at the counter", "priority": "high"}"#)
                }
            }
            var statuses: [Int: Int] = [:]
            for try await status in group { statuses[status, default: 0] += 1 }
            #expect(statuses == [202: 300], "\(statuses)")
        }
        let (status, answer) = try daemon.post("/v1/announcements", #"{"payment": {"amount": "25.30"}, "priority": "high", "request_id": "till-1/7"}"#)
        #expect(status == 202, "\(answer)")
        try SoundServer.waitFor("the till's payment to be said", timeout: 30) {
            (try harness.history().first { $0["request_id"] as? String == "till-1/7" }?["outcome"] as? String) != nil
        }
        let payment = try #require(try harness.history().first { $0["request_id"] as? String == "till-1/7" })
        #expect(payment["outcome"] as? String == "played", "\(payment)")
        let played = try Daemon.request("GET", daemon.base + "/v1/announcements?outcome=played&limit=500").1 as? [[String: Any]] ?? []
        let texts = played.filter { $0["body_kind"] as? String == "text" }
        #expect(played.count == texts.count + 1 && texts.count <= 3, "said after at most the text playing when it came (and one or two more): \(texts.count)")
    }
}
}
