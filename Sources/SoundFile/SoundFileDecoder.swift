import CSndFile
import Foundation
import HeraldCore

/// Decodes any file the installed libsndfile reads (WAV, FLAC, Ogg Vorbis, Ogg Opus, MP3...) into a `Clip`.
public enum SoundFileDecoder {
    /// Reads the whole file at `path` as 32-bit float PCM.
    public static func decode(path: String) throws -> Clip {
        guard FileManager.default.fileExists(atPath: path) else { throw SoundFileError.notFound(path: path) }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw SoundFileError.unreadable(path: path, reason: "permission denied")
        }
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw SoundFileError.undecodable(path: path, reason: SoundFileError.message(nil))
        }
        defer { sf_close(file) }
        guard info.channels > 0, info.samplerate > 0 else {
            throw SoundFileError.undecodable(path: path, reason: "no channels or sample rate")
        }
        // Some formats (MP3, Opus) report no frame count up front: read in blocks until the end.
        let channels = Int(info.channels)
        let blockFrames = 16_384
        var samples: [Float] = []
        if info.frames > 0 { samples.reserveCapacity(Int(info.frames) * channels) }
        var block = [Float](repeating: 0, count: blockFrames * channels)
        while true {
            let read = block.withUnsafeMutableBufferPointer {
                sf_readf_float(file, $0.baseAddress, sf_count_t(blockFrames))
            }
            if read < 0 { throw SoundFileError.undecodable(path: path, reason: SoundFileError.message(file)) }
            if read == 0 { break }
            samples.append(contentsOf: block[0..<(Int(read) * channels)])
        }
        if sf_error(file) != 0 {
            throw SoundFileError.undecodable(path: path, reason: SoundFileError.message(file))
        }
        guard !samples.isEmpty else { throw SoundFileError.empty(path: path) }
        return Clip(sampleRate: Int(info.samplerate), channelCount: channels, samples: samples)
    }
}
