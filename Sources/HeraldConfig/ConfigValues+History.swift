extension ConfigValues {
    /// `history.audio_retention` (a duration: 0 keeps no audio) and `history.audio_max_bytes`
    /// (a size): how long, and how much of, the audio said is kept for listening back.
    mutating func readAudioHistory(into history: inout HistorySettings) {
        history.audioRetention = duration("history.audio_retention", range: .zero ... .seconds(365 * 86_400))
            ?? history.audioRetention
        if let size = string("history.audio_max_bytes"), !size.isEmpty {
            if let bytes = Self.byteCount(size) {
                history.audioMaxBytes = bytes
            } else {
                report("history.audio_max_bytes", "'\(size)' is not a size; write it like 200MB, 500KB or 1GB")
            }
        }
    }
}
