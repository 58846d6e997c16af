import CEspeakNG
import HeraldCore

extension EspeakSynthesizer {
    /// What espeak-ng makes of `text` in `voice`, as the phoneme names `espeak-ng -q -x` prints,
    /// clause after clause: how the tests hear that a number is read as a number (issue 50), and
    /// that no word of another language slipped in (espeak-ng marks a switch as "(en)").
    /// - Throws: `SpeechError.unknownVoice` for a voice espeak-ng does not have.
    public func phonemes(_ text: String, voice: String) throws -> String {
        _ = try initialize()
        guard espeak_SetVoiceByName(voice) == EE_OK else { throw SpeechError.unknownVoice(voice) }
        var clauses: [String] = []
        // NULs after the text: read alone, "1" in Marathi came back as "(en)ti:(mr)e:k" in one run
        // of three, as if espeak-ng looked past the end of a short text; with them, in none of six.
        (text + String(repeating: "\0", count: 8)).withCString { start in
            // espeak-ng moves the pointer past each clause it reads, and sets it to nil at the end.
            var cursor: UnsafeRawPointer? = UnsafeRawPointer(start)
            while cursor != nil, let phonemes = espeak_TextToPhonemes(&cursor, Int32(espeakCHARS_UTF8), 0) {
                clauses.append(String(cString: phonemes))
            }
        }
        return clauses.joined(separator: " ")
    }
}
