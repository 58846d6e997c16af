import AsyncHTTPClient
import Foundation
@testable import HeraldCalendar
import HeraldCore
import Logging
import Testing

/// Reading a calendar without a server: what a CalDAV server's multistatus says (Radicale's own
/// answers, recorded), and an .ics file read, unchanged, broken and read again after a restart
/// from the last good copy on disk. Against a real Radicale: IntegrationTests' CalendarTests.
struct CalendarFetcherTests {
    /// Radicale 3.1's answer to the PROPFIND for getctag and sync-token.
    static let propfind = """
        <?xml version='1.0' encoding='utf-8'?>
        <multistatus xmlns="DAV:" xmlns:CS="http://calendarserver.org/ns/"><response><href>/herald/cal1/</href><propstat><prop><CS:getctag>"ca5d66c5"</CS:getctag><sync-token>http://radicale.org/ns/sync/e3b0c442</sync-token></prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>
        """

    /// A calendar-query answer as Nextcloud shapes it (prefixed names, a 404 propstat).
    static let report = """
        <?xml version="1.0"?>
        <d:multistatus xmlns:d="DAV:" xmlns:cal="urn:ietf:params:xml:ns:caldav">
         <d:response><d:href>/remote.php/dav/calendars/anna/family/a.ics</d:href>
          <d:propstat><d:prop><d:getetag>"1"</d:getetag><cal:calendar-data>BEGIN:VCALENDAR&#13;
        BEGIN:VEVENT&#13;
        UID:a&#13;
        END:VEVENT&#13;
        END:VCALENDAR&#13;
        </cal:calendar-data></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
          <d:propstat><d:prop><d:displayname/></d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat>
         </d:response>
         <d:response><d:href>/remote.php/dav/calendars/anna/family/b.ics</d:href>
          <d:propstat><d:prop><d:getetag>"2"</d:getetag><cal:calendar-data><![CDATA[BEGIN:VCALENDAR
        UID:b
        END:VCALENDAR]]></cal:calendar-data></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
         </d:response>
        </d:multistatus>
        """

    @Test func aMultistatusIsReadWhateverItsPrefixes() throws {
        let state = try #require(DAVMultistatus(Data(Self.propfind.utf8)))
        #expect(state.first(DAVMultistatus.calendarServer, "getctag") == "\"ca5d66c5\"")
        #expect(state.first(DAVMultistatus.dav, "sync-token") == "http://radicale.org/ns/sync/e3b0c442")
        let events = try #require(DAVMultistatus(Data(Self.report.utf8)))
        let data = events.responses.compactMap { $0.properties["{\(DAVMultistatus.caldav)}calendar-data"] }
        #expect(data.count == 2 && data.allSatisfy { $0.hasPrefix("BEGIN:VCALENDAR") && $0.hasSuffix("END:VCALENDAR") }, "\(data)")
        #expect(events.responses.map(\.href).last == "/remote.php/dav/calendars/anna/family/b.ics")
        #expect(events.responses[0].properties["{DAV:}displayname"] == nil, "a 404 propstat's property is not the resource's")
        #expect(DAVMultistatus(Data("<html><body>Login</body></html>".utf8)) == nil)
    }

    @Test func anICSFileIsReadOnceUntilItChangesAndItsLastGoodCopyOutlivesARestart() async throws {
        let folder = NSTemporaryDirectory() + "herald-calendar-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/agency.ics", cache = folder + "/state/calendars/agency.json"
        let settings = CalendarSettings(name: "agency", source: .icsFile(file))
        let client = HTTPClient.shared
        func fetcher() -> CalendarFetcher { CalendarFetcher(settings: settings, cacheFile: cache, httpClient: client, logger: Logger(label: "test")) }
        let first = Fixture.calendar(Fixture.event(uid: "one", start: ":20261201T090000Z"))
        try first.write(toFile: file, atomically: true, encoding: .utf8)
        let reader = fetcher()
        let read = await reader.fetch()
        #expect(read.changed && read.problem == nil && read.objects == [first])
        #expect(await reader.fetch().changed == false, "the same file is not read again")
        var mode = stat()
        #expect(stat(cache, &mode) == 0 && mode.st_mode & 0o077 == 0, "the copy is this user's alone")

        // Broken: the last good copy stays, with the reason.
        try "<html>Sign in</html>".write(toFile: file, atomically: true, encoding: .utf8)
        let broken = await reader.fetch()
        #expect(broken.problem?.contains("not iCalendar") == true && broken.objects == [first] && broken.fromCache)
        // A restart (a new reader) with the file gone still has it, from disk.
        try FileManager.default.removeItem(atPath: file)
        let restarted = await fetcher().fetch()
        #expect(restarted.problem != nil && restarted.objects == [first] && restarted.fromCache)
        #expect(abs((restarted.readAt ?? .distantPast).timeIntervalSince(read.readAt ?? .distantFuture)) < 1, "when the copy was read, to the second")
        // The config now names another file for the same calendar: the old copy is not its.
        let moved = CalendarFetcher(settings: CalendarSettings(name: "agency", source: .icsFile(folder + "/other.ics")), cacheFile: cache,
                                    httpClient: client, logger: Logger(label: "test"))
        let other = await moved.fetch()
        #expect(other.problem != nil && other.objects.isEmpty && !other.fromCache, "\(other)")
    }

    @Test func anICSAddressThatCannotBeReachedKeepsNothingItDidNotHave() async throws {
        let folder = NSTemporaryDirectory() + "herald-calendar-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let client = HTTPClient.shared
        // Port 9 (discard) on loopback: nothing listens there. (async-http-client tries to connect
        // again until the request's deadline: this takes the fetcher's 20 s.)
        let settings = CalendarSettings(name: "google", source: .icsURL(URL(string: "http://127.0.0.1:9/basic.ics")!))
        let read = await CalendarFetcher(settings: settings, cacheFile: folder + "/google.json", httpClient: client,
                                         logger: Logger(label: "test")).fetch()
        #expect(read.problem?.contains("could not be reached") == true && read.objects.isEmpty && !read.fromCache, "\(read)")
    }
}
