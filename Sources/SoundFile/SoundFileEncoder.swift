import CSndFile
import HeraldCore
#if canImport(Glibc)
import Glibc
#endif

/// Writes a `Clip` through libsndfile: WAV for tests and samples, FLAC for the clip cache.
public enum SoundFileEncoder {
    /// The containers and codecs Herald writes.
    public enum Format: String, Sendable, CaseIterable {
        case wav, flac, oggVorbis, oggOpus, mp3

        var code: Int32 {
            switch self {
            case .wav: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
            case .flac: Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16)
            case .oggVorbis: Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS)
            case .oggOpus: Int32(SF_FORMAT_OGG | SF_FORMAT_OPUS)
            case .mp3: Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III)
            }
        }
    }

    /// True when the installed libsndfile can write `format` for this rate and channel count.
    public static func canWrite(_ format: Format, sampleRate: Int, channelCount: Int) -> Bool {
        var info = SF_INFO(frames: 0, samplerate: Int32(sampleRate), channels: Int32(channelCount),
                           format: format.code, sections: 0, seekable: 0)
        return sf_format_check(&info) != 0
    }

    /// Writes `clip` to `path` in `format`; a new file gets `mode` (default 0600: Herald's files
    /// are its user's alone), whatever the umask; an existing one keeps its mode.
    public static func write(_ clip: Clip, to path: String, format: Format, mode: mode_t = 0o600) throws {
        guard canWrite(format, sampleRate: clip.sampleRate, channelCount: clip.channelCount) else {
            throw SoundFileError.unsupportedFormat("\(format) at \(clip.sampleRate) Hz")
        }
        var info = SF_INFO(frames: 0, samplerate: Int32(clip.sampleRate), channels: Int32(clip.channelCount),
                           format: format.code, sections: 0, seekable: 0)
        // Opened here, not by sf_open (which creates with 0666 less the umask); closed here too.
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw SoundFileError.unwritable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        guard let file = sf_open_fd(descriptor, Int32(SFM_WRITE), &info, 0) else {
            throw SoundFileError.unwritable(path: path, reason: SoundFileError.message(nil))
        }
        let written = clip.samples.withUnsafeBufferPointer {
            sf_writef_float(file, $0.baseAddress, sf_count_t(clip.frameCount))
        }
        let failure = written != clip.frameCount ? SoundFileError.message(file) : nil
        if sf_close(file) != 0 || failure != nil {
            throw SoundFileError.unwritable(path: path, reason: failure ?? "close failed")
        }
    }
}
