import Foundation
import Testing

/// `GET /v1/hubs` for a national fleet (issue 48): pages by name, filters and counts in the
/// database, an ETag for an unchanged answer, the changes since a cursor, and a 400 naming the
/// parameter for bad input. The old bare array stays for scripts written against it.
extension OnTheTestSink.FleetTests {
    func page(_ console: FleetConsole, _ query: String) throws -> [String: Any] {
        try #require(try console.get("/v1/hubs?" + query) as? [String: Any], "GET /v1/hubs?\(query)")
    }

    static func names(_ answer: [String: Any]) -> [String] { (answer["hubs"] as? [[String: Any]] ?? []).compactMap { $0["hub"] as? String } }

    static func counts(_ answer: [String: Any]) -> [String: Int] { answer["counts"] as? [String: Int] ?? [:] }

    @Test func hubsArePagedFilteredCountedAndPolledForChangesByTheDatabase() throws {
        let database = try Postgres.freshDatabase()
        let console = try FleetConsole(name: "g-\(tag)", database: database)
        let simulator = try simulate(hubs: 250, prefix: "pg-\(tag)-")
        defer { kill(simulator.processIdentifier, SIGTERM); simulator.waitUntilExit() }
        let gone = "pg-\(tag)-gone"
        try Broker.publish("herald/\(gone)/status", #"{"state":"offline","version":"1"}"#, retain: true)
        defer { try? Broker.clearRetained("herald/\(gone)/status") }
        // Only this test's hubs (`q`): the broker hands the console other tests' retained hubs too.
        try SoundServer.waitFor("251 hubs counted", timeout: 60) {
            Self.counts((try? page(console, "q=pg-\(tag)&limit=1")) ?? [:])["total"] == 251
        }
        let first = try page(console, "q=PG-\(tag)&limit=1")
        #expect(Self.counts(first) == ["total": 251, "online": 250, "stale": 0, "offline": 1], "\(first)")

        // Three pages of 100 by name, each starting after the last: every hub once, in order.
        var listed: [String] = [], after: String?, pages = 0
        repeat {
            let answer = try page(console, "q=pg-\(tag)&limit=100" + (after.map { "&after=" + $0 } ?? ""))
            listed += Self.names(answer)
            after = answer["next"] as? String
            pages += 1
        } while after != nil && pages < 10
        #expect(pages == 3 && listed.count == 251 && listed == listed.sorted() && Set(listed).count == 251)
        #expect(listed.contains(gone) && listed.contains("pg-\(tag)-0249"))

        // Filters: a state, a group; the counts are the group's in every state.
        let offline = try page(console, "q=pg-\(tag)&state=offline&limit=100")
        #expect(Self.names(offline) == [gone] && offline["next"] == nil, "\(offline)")
        let group = try page(console, "q=pg-\(tag)&group=group-1&limit=1000")
        let members = group["hubs"] as? [[String: Any]] ?? []
        #expect(members.count == 63 && members.allSatisfy { ($0["groups"] as? [String]) == ["group-1"] })
        #expect(Self.counts(group)["total"] == 63)
        let groups = try #require(try console.get("/v1/groups") as? [[String: Any]])
        #expect(groups.contains { $0["group"] as? String == "group-1" && ($0["hubs"] as? Int ?? 0) >= 63 }, "\(groups)")
        // The answer before paging, for the scripts that read it.
        let old = try #require(try console.get("/v1/hubs?state=offline") as? [[String: Any]])
        #expect(old.contains { $0["hub"] as? String == gone } && old.allSatisfy { $0["state"] as? String == "offline" })

        // An unchanged page is a 304 to the ETag it was sent with.
        let url = console.base + "/v1/hubs?q=pg-\(tag)&state=offline&limit=10"
        let headers = try SoundServer.run("curl", ["-s", "-D", "-", "-o", "/dev/null", url]).stdout
        let etag = try #require(headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("etag:") }?.dropFirst(5)
            .trimmingCharacters(in: .whitespaces))
        let again = try SoundServer.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "If-None-Match: \(etag)", url]).stdout
        #expect(again == "304", "with \(etag)")
        let other = try SoundServer.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "If-None-Match: \"0\"", url]).stdout
        #expect(other == "200")

        // Changes: none once nothing has changed (the rows' marks put an hour back), then a new hub.
        _ = try Postgres.query(database, "UPDATE hubs SET changed_at = now() - interval '1 hour'")
        let quiet = try page(console, "q=pg-\(tag)&since=\(try #require(first["cursor"] as? String))")
        #expect(Self.names(quiet).isEmpty && quiet["resync"] as? Bool == false, "\(quiet)")
        #expect(Self.counts(quiet)["total"] == 251)
        let beat = "pg-\(tag)-beat"
        try Broker.publish("herald/\(beat)/health", Self.heartbeat(beat, rooms: 1, interval: 1))
        try SoundServer.waitFor("the new hub listed", timeout: 10) {
            Self.counts((try? page(console, "q=pg-\(tag)&limit=1")) ?? [:])["total"] == 252
        }
        let added = try page(console, "q=pg-\(tag)&since=\(try #require(quiet["cursor"] as? String))")
        #expect(Self.names(added) == [beat], "\(added)")
        // It says no more: time makes it stale, then offline, with no row changed; a poll sees it.
        _ = try Postgres.query(database, "UPDATE hubs SET changed_at = now() - interval '1 hour'")
        Thread.sleep(forTimeInterval: 3.5)
        let silent = try page(console, "q=pg-\(tag)&since=\(try #require(added["cursor"] as? String))")
        #expect(Self.names(silent) == [beat] && (silent["hubs"] as? [[String: Any]])?.first?["state"] as? String == "offline", "\(silent)")
        // More changes than the limit (every row's mark is within the two hours): read the page again.
        let many = try page(console, "q=pg-\(tag)&limit=1&since=\(HubCursor.before(hours: 2))")
        #expect(many["resync"] as? Bool == true && Self.names(many).isEmpty, "\(many)")

        // Bad input: a 400 naming the parameter and its value.
        for (query, field, value) in [("limit=0", "limit", "0"), ("limit=all", "limit", "all"), ("after=a%20b", "after", "a b"),
                                      ("since=yesterday", "since", "yesterday"), ("limit=5&state=asleep", "state", "asleep")] {
            let (status, body) = try Daemon.request("GET", console.base + "/v1/hubs?" + query)
            let error = body as? [String: String] ?? [:]
            #expect(status == 400 && error["field"] == field && error["error"]?.contains("'\(value)'") == true, "\(query): \(status) \(error)")
        }
        #expect(!console.log.contains(" error "), "\(console.log)")
    }
}

/// A `since` cursor for a moment in the past.
enum HubCursor {
    static func before(hours: Double) -> String { String(Int64((Date().timeIntervalSince1970 - hours * 3600) * 1000)) }
}
