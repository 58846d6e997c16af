import Foundation

/// The last good copy of a calendar, kept on disk (`<state>/calendars/<name>.json`): what a
/// restart says from while the calendar's server is down, and the validators that let an
/// unchanged calendar cost one small request.
struct CalendarCopy: Codable, Equatable {
    /// Where it was read from (`CalendarFetcher.identity`): a calendar whose address or user
    /// changed in the config does not start from another calendar's copy.
    var source: String
    /// Its iCalendar objects: one per CalDAV resource, or the one .ics body.
    var objects: [String]
    /// When it was read from its source.
    var readAt: Date
    /// An .ics URL's `ETag` and `Last-Modified`.
    var etag: String?
    var lastModified: String?
    /// A CalDAV collection's `getctag` and `sync-token`.
    var ctag: String?
    var syncToken: String?
    /// An .ics file's modification time and size.
    var fileStamp: String?

    enum CodingKeys: String, CodingKey {
        case source, objects, etag, ctag
        case readAt = "read_at", lastModified = "last_modified", syncToken = "sync_token", fileStamp = "file_stamp"
    }

    /// The copy at `path`, nil when there is none (or it cannot be read: a new read replaces it).
    static func read(_ path: String) -> CalendarCopy? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(CalendarCopy.self, from: data)
    }

    /// Written whole or not at all (a temporary file renamed over it), readable by this user
    /// only: a calendar holds a household's appointments.
    func write(_ path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let temporary = path + ".new"
        guard FileManager.default.createFile(atPath: temporary, contents: try encoder.encode(self), attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary])
        }
        guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
    }
}
