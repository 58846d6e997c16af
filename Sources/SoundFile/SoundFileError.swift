import CSndFile

/// A file that could not be read, decoded or written, with libsndfile's own message.
public enum SoundFileError: Error, Equatable, CustomStringConvertible {
    case notFound(path: String)
    case unreadable(path: String, reason: String)
    case undecodable(path: String, reason: String)
    case empty(path: String)
    case unwritable(path: String, reason: String)
    case unsupportedFormat(String)

    public var description: String {
        switch self {
        case .notFound(let path): "\(path): no such file; check the path"
        case .unreadable(let path, let reason): "\(path): cannot read it (\(reason)); check its permissions"
        case .undecodable(let path, let reason):
            "\(path): not a sound file libsndfile can decode (\(reason)); use WAV, FLAC, Ogg Vorbis/Opus or MP3"
        case .empty(let path): "\(path): the file holds no audio"
        case .unwritable(let path, let reason): "\(path): cannot write it (\(reason))"
        case .unsupportedFormat(let what): "this libsndfile cannot write \(what)"
        }
    }

    static func message(_ file: OpaquePointer?) -> String {
        String(cString: sf_strerror(file))
    }
}
