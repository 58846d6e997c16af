import Foundation

/// The audio an announcement played, kept for listening back (`history.audio_retention`), as the
/// log knows it. The file itself is `<id>.wav` in the kept-audio folder; once removed, the entry
/// stays as a note of when and why (`goneAt`, `goneBecause`), so the API can answer 410 naming it.
public struct KeptAudioRecord: Codable, Sendable, Equatable {
    public var announcementID: String
    public var bytes: Int64
    public var durationMilliseconds: Int
    /// Where the lead-in silence and the chime end and the body begins (0: neither was played).
    public var chimeEndMilliseconds: Int
    /// True when only part of what was meant was played (interrupted): the file holds what was.
    public var partial: Bool
    public var keptAt: Date
    /// When the file was removed; nil while it is kept.
    public var goneAt: Date?
    /// Why the file was removed, in an admin's words (names the setting that removed it).
    public var goneBecause: String?

    /// The columns of `kept_audio`.
    enum CodingKeys: String, CodingKey {
        case announcementID = "announcement_id", bytes, durationMilliseconds = "duration_milliseconds"
        case chimeEndMilliseconds = "chime_end_milliseconds", partial, keptAt = "kept_at", goneAt = "gone_at"
        case goneBecause = "gone_because"
    }

    public init(announcementID: String, bytes: Int64, durationMilliseconds: Int, chimeEndMilliseconds: Int,
                partial: Bool, keptAt: Date, goneAt: Date? = nil, goneBecause: String? = nil) {
        self.announcementID = announcementID
        self.bytes = bytes
        self.durationMilliseconds = durationMilliseconds
        self.chimeEndMilliseconds = chimeEndMilliseconds
        self.partial = partial
        self.keptAt = keptAt
        self.goneAt = goneAt
        self.goneBecause = goneBecause
    }
}
