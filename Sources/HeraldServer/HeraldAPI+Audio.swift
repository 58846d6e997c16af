import Foundation
import HeraldApp
import HeraldCore
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /v1/announcements/{id}/audio`: the audio an announcement played, as WAV, with range
/// requests (a browser's `<audio>` seeks with them). Under the same roles as the log.
extension HeraldAPI {
    func addAudioRoutes(_ router: Router<HeraldRequestContext>, routes: RouteTable) {
        routes.on(router, .get, "/v1/announcements/{id}/audio") { request, context in
            try await audio(id: try context.pathID(), range: request.headers[.range])
        }
    }

    func audio(id: String, range: String?) async throws -> Response {
        guard let row = try await context.store.announcement(id: id) else {
            throw APIError(.notFound, field: "id", "no announcement \(id)")
        }
        switch try await KeptAudio(context: context).lookup(row, now: Date()) {
        case .never(let reason):
            throw APIError(.notFound, field: "id", "announcement \(id) has no audio: \(reason)")
        case .gone(let record):
            let when = record.goneAt.map { " on " + ISO8601DateFormatter().string(from: $0) } ?? ""
            throw APIError(.gone, field: "id",
                           "the audio of announcement \(id) is no longer kept: removed\(when), \(record.goneBecause ?? "pruned")")
        case .kept(let path, _):
            return try await Self.serve(path, range: range)
        }
    }

    /// The file at `path`, whole (200) or the part `range` asks for (206), or 416.
    static func serve(_ path: String, range: String?) async throws -> Response {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw APIError(.gone, field: "id", "the audio's file went away while it was asked for")
        }
        defer { try? handle.close() }
        let size = Int64(try handle.seekToEnd())
        var headers = HTTPFields()
        headers[.contentType] = "audio/wav"
        headers[.acceptRanges] = "bytes"
        // The file of a row can be written again (a later turn in other rooms): always ask.
        headers[.cacheControl] = "private, no-cache"
        let (first, last): (Int64, Int64)
        let status: HTTPResponse.Status
        switch ByteRange.resolve(range, size: size) {
        case .whole:
            (first, last, status) = (0, size - 1, .ok)
        case .part(let from, let to):
            (first, last, status) = (from, to, .partialContent)
            headers[.contentRange] = "bytes \(from)-\(to)/\(size)"
        case .unsatisfiable(let problem):
            var error = APIError(.rangeNotSatisfiable, field: "Range", "\(problem); the audio has \(size) bytes")
            error.headers[.contentRange] = "bytes */\(size)"
            error.headers[.acceptRanges] = "bytes"
            throw error
        }
        try handle.seek(toOffset: UInt64(first))
        let bytes = last >= first ? try handle.read(upToCount: Int(last - first + 1)) ?? Data() : Data()
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

/// A log row as the API shows it, with what there is to hear of it (`audio`): the row's own
/// fields, and `audio` when some was kept (`state`: `kept` or `gone`, with why).
struct HistoryRow: Encodable, Sendable {
    var record: AnnouncementRecord
    var audio: AudioState?

    struct AudioState: Encodable, Sendable {
        var state: String
        var url: String?
        var durationMilliseconds: Int?
        var chimeEndMilliseconds: Int?
        var partial: Bool?
        var goneAt: Date?
        var reason: String?

        init(_ lookup: KeptAudio.Lookup) {
            switch lookup {
            case .kept(_, let record):
                state = "kept"
                url = "/v1/announcements/\(record.announcementID)/audio"
                durationMilliseconds = record.durationMilliseconds
                chimeEndMilliseconds = record.chimeEndMilliseconds
                partial = record.partial
            case .gone(let record):
                state = "gone"
                goneAt = record.goneAt
                reason = record.goneBecause
            case .never(let reason):
                state = "none"
                self.reason = reason
            }
        }
    }

    private enum Key: String, CodingKey { case audio }

    func encode(to encoder: any Encoder) throws {
        try record.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(audio, forKey: .audio)
    }

    /// `records` with what there is to hear of each; when that cannot be read, without it.
    static func rows(_ records: [AnnouncementRecord], context: HeraldContext) async -> [HistoryRow] {
        let states = (try? await KeptAudio(context: context).states(ids: records.map(\.id), now: Date())) ?? [:]
        return records.map { HistoryRow(record: $0, audio: states[$0.id].map(AudioState.init)) }
    }
}
