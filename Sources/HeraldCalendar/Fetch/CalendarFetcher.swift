import AsyncHTTPClient
import Foundation
import HeraldCore
import Logging
import NIOCore
import NIOHTTP1

/// One read of a calendar: its iCalendar objects (the last good copy when this read failed).
public struct CalendarFetch: Sendable {
    /// Whole `VCALENDAR` texts: one per CalDAV resource, or the one .ics body.
    public var objects: [String]
    /// False when the calendar is as it was at the last successful read (or this read failed).
    public var changed: Bool
    /// Why this read failed; nil when it worked.
    public var problem: String?
    /// When the objects were read from the source; nil when there is no copy at all.
    public var readAt: Date?
    /// True when the objects are the last good copy, not this read's.
    public var fromCache: Bool
}

/// Reads a calendar from its source (a CalDAV collection, an .ics URL or file) and keeps its
/// last good copy on disk. An unchanged calendar costs one small request: CalDAV's `getctag` or
/// `sync-token` (one PROPFIND), an .ics URL's `ETag` or `Last-Modified` (a 304), a file's
/// modification time and size. A failure is logged once per change of its reason.
public actor CalendarFetcher {
    /// Bodies over this are refused unread beyond it: a calendar is not 50 MB.
    public static let maxBytes = 10 << 20
    static let timeout: TimeAmount = .seconds(20)
    static let maxRedirects = 5

    let settings: CalendarSettings
    let cacheFile: String
    let client: HTTPClient
    let logger: Logger
    private var copy: CalendarCopy?
    private var loaded = false
    private var lastProblem: String?

    /// - Parameter cacheFile: where the last good copy is kept (its folder is made 0700).
    public init(settings: CalendarSettings, cacheFile: String, httpClient: HTTPClient, logger: Logger) {
        self.settings = settings
        self.cacheFile = cacheFile
        self.client = httpClient
        self.logger = logger
    }

    /// Reads it once; never throws: a failure answers with the last good copy and the reason.
    public func fetch() async -> CalendarFetch {
        if !loaded {
            copy = CalendarCopy.read(cacheFile).flatMap { $0.source == identity ? $0 : nil }
            loaded = true
        }
        do {
            let read = try await readSource()
            if lastProblem != nil { logger.notice("calendar \(settings.name): read again") }
            lastProblem = nil
            guard let read else {
                return CalendarFetch(objects: copy?.objects ?? [], changed: false, problem: nil, readAt: copy?.readAt, fromCache: false)
            }
            copy = read
            do { try read.write(cacheFile) } catch {
                logger.warning("calendar \(settings.name): could not keep its copy in \(cacheFile): \(error)")
            }
            return CalendarFetch(objects: read.objects, changed: true, problem: nil, readAt: read.readAt, fromCache: false)
        } catch {
            let problem = (error as? CalendarFetchError)?.description ?? "\(error)"
            if problem != lastProblem {
                logger.error("calendar \(settings.name): \(problem); \(copy == nil ? "no earlier copy" : "its copy of \(copy!.readAt) is used")")
            }
            lastProblem = problem
            return CalendarFetch(objects: copy?.objects ?? [], changed: false, problem: problem, readAt: copy?.readAt, fromCache: copy != nil)
        }
    }

    /// The source and the user it is read as: what a kept copy must have been read from.
    var identity: String {
        switch settings.source {
        case .caldav(let url): "caldav \(url.absoluteString) as \(settings.username ?? "")"
        case .icsURL(let url): "ics \(url.absoluteString) as \(settings.username ?? "")"
        case .icsFile(let path): "file \(path)"
        }
    }

    /// A new copy, or nil when the source says nothing changed since `copy`.
    private func readSource() async throws -> CalendarCopy? {
        switch settings.source {
        case .icsFile(let path): return try readFile(path)
        case .icsURL(let url): return try await readICS(url)
        case .caldav(let url): return try await readCollection(url)
        }
    }

    private func readFile(_ path: String) throws -> CalendarCopy? {
        var status = stat()
        guard stat(path, &status) == 0 else { throw CalendarFetchError("cannot read \(path): \(String(cString: strerror(errno)))") }
        let stamp = "\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec):\(status.st_size)"
        if let copy, copy.fileStamp == stamp { return nil }
        guard status.st_size <= Self.maxBytes else { throw CalendarFetchError("\(path) is over \(Self.maxBytes >> 20) MB: not a calendar") }
        guard let data = FileManager.default.contents(atPath: path) else { throw CalendarFetchError("cannot read \(path)") }
        var read = CalendarCopy(source: identity, objects: [try Self.calendarText(data, from: path)], readAt: Date())
        read.fileStamp = stamp
        return read
    }

    private func readICS(_ url: URL) async throws -> CalendarCopy? {
        var headers = HTTPHeaders()
        if let copy, copy.objects.count == 1 {
            if let etag = copy.etag { headers.add(name: "If-None-Match", value: etag) }
            if let modified = copy.lastModified { headers.add(name: "If-Modified-Since", value: modified) }
        }
        let (status, answer, body) = try await request(.GET, url, headers: headers, followRedirects: true)
        if status == 304 { return nil }
        try Self.check(status, url)
        var read = CalendarCopy(source: identity, objects: [try Self.calendarText(body, from: url.absoluteString)], readAt: Date())
        read.etag = answer.first(name: "ETag")
        read.lastModified = answer.first(name: "Last-Modified")
        return read
    }

    private func readCollection(_ url: URL) async throws -> CalendarCopy? {
        let propfind = #"<?xml version="1.0" encoding="utf-8"?><d:propfind xmlns:d="DAV:" xmlns:cs="http://calendarserver.org/ns/"><d:prop><cs:getctag/><d:sync-token/></d:prop></d:propfind>"#
        let (status, _, body) = try await request(.init(rawValue: "PROPFIND"), url, headers: ["Depth": "0"], body: propfind)
        try Self.check(status, url, expected: 207)
        guard let state = DAVMultistatus(body) else { throw CalendarFetchError("\(url.absoluteString) answered PROPFIND with no multistatus: not a CalDAV collection") }
        let ctag = state.first(DAVMultistatus.calendarServer, "getctag").flatMap { $0.isEmpty ? nil : $0 }
        let token = state.first(DAVMultistatus.dav, "sync-token").flatMap { $0.isEmpty ? nil : $0 }
        if let copy, ctag != nil || token != nil, copy.ctag == ctag, copy.syncToken == token { return nil }
        let query = #"<?xml version="1.0" encoding="utf-8"?><c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"/></c:comp-filter></c:filter></c:calendar-query>"#
        let (reportStatus, _, events) = try await request(.init(rawValue: "REPORT"), url, headers: ["Depth": "1"], body: query)
        try Self.check(reportStatus, url, expected: 207)
        guard let answer = DAVMultistatus(events) else { throw CalendarFetchError("\(url.absoluteString) answered REPORT with no multistatus") }
        let objects = answer.responses.compactMap { $0.properties["{\(DAVMultistatus.caldav)}calendar-data"] }.filter { !$0.isEmpty }
        for object in objects where !Self.isCalendar(object) {
            throw CalendarFetchError("\(url.absoluteString) gave calendar data that is not iCalendar")
        }
        var read = CalendarCopy(source: identity, objects: objects, readAt: Date())
        (read.ctag, read.syncToken) = (ctag, token)
        return read
    }

    /// One request with the calendar's credentials (only to its own host), its body read up to
    /// `maxBytes`; redirects followed (GET only) up to `maxRedirects`.
    private func request(_ method: HTTPMethod, _ url: URL, headers: HTTPHeaders = [:], body: String? = nil,
                         followRedirects: Bool = false) async throws -> (Int, HTTPHeaders, Data) {
        var target = url, seen: Set<String> = []
        while true {
            var request = HTTPClientRequest(url: target.absoluteString)
            request.method = method
            request.headers = headers
            request.headers.add(name: "User-Agent", value: "Herald calendar reader")
            if let username = settings.username, target.host == url.host {
                let credentials = Data("\(username):\(settings.password ?? "")".utf8).base64EncodedString()
                request.headers.add(name: "Authorization", value: "Basic \(credentials)")
            }
            if let body {
                request.headers.add(name: "Content-Type", value: "application/xml; charset=utf-8")
                request.body = .bytes(ByteBuffer(string: body))
            }
            let response: HTTPClientResponse
            do { response = try await client.execute(request, timeout: Self.timeout) } catch {
                throw CalendarFetchError("\(target.host ?? target.absoluteString) could not be reached: \(error)")
            }
            let status = Int(response.status.code)
            if followRedirects, [301, 302, 303, 307, 308].contains(status), let location = response.headers.first(name: "Location"),
               let next = URL(string: location, relativeTo: target)?.absoluteURL {
                guard seen.insert(next.absoluteString).inserted, seen.count <= Self.maxRedirects else {
                    throw CalendarFetchError("\(url.absoluteString) redirects in a loop (or more than \(Self.maxRedirects) times)")
                }
                target = next
                continue
            }
            do {
                let buffer = try await response.body.collect(upTo: Self.maxBytes)
                return (status, response.headers, Data(buffer.readableBytesView))
            } catch is NIOTooManyBytesError {
                throw CalendarFetchError("\(target.absoluteString) sent more than \(Self.maxBytes >> 20) MB: not a calendar")
            }
        }
    }

    static func check(_ status: Int, _ url: URL, expected: Int = 200) throws {
        switch status {
        case expected, 200..<300 where expected == 200: return
        case 401, 403: throw CalendarFetchError("\(url.host ?? "the server") answered \(status): wrong username or password")
        case 404: throw CalendarFetchError("\(url.absoluteString) answered 404: no calendar there")
        default: throw CalendarFetchError("\(url.absoluteString) answered \(status)")
        }
    }

    /// The body as text, when it is iCalendar (a byte-order mark and blank lines before it allowed).
    static func calendarText(_ data: Data, from source: String) throws -> String {
        let text = String(decoding: data, as: UTF8.self)
        guard isCalendar(text) else { throw CalendarFetchError("\(source) is not iCalendar (it does not begin with BEGIN:VCALENDAR)") }
        return text
    }

    static func isCalendar(_ text: String) -> Bool {
        text.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\u{FEFF}"))).uppercased().hasPrefix("BEGIN:VCALENDAR")
    }
}

/// Why a calendar could not be read, in a sentence for the log, doctor and the API.
struct CalendarFetchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
