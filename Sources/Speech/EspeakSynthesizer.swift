import CEspeakNG
import Executors
import Foundation
import HeraldCore
import Synchronization

/// espeak-ng linked in-process, streaming: chunks go out while the rest of the sentence is
/// still being synthesized.
///
/// espeak-ng keeps process-global state (the voice, the parameters, the callback): it is one
/// engine per process, so this one actor owns it, and every call into the library runs on its
/// one serial executor, one synthesis at a time, on a dispatch queue of its own beside the
/// cooperative pool (a long sentence blocks for a while; the pool has one thread a core).
public actor EspeakSynthesizer: Synthesizer {
    public nonisolated let engineName = "espeak-ng"
    private nonisolated let executor = DispatchQueueExecutor(label: "herald-espeak-ng")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    private var sampleRate: Int?
    /// The voice list, read once (`catalog()`): it does not change while Herald runs.
    var cachedCatalog: EspeakVoiceCatalog?

    /// The process-wide instance: there can be only one owner of espeak-ng's state.
    public static let shared = EspeakSynthesizer()

    private init() {}

    /// espeak-ng's voice for a language code, when the caller names no voice.
    public static func defaultVoice(language: String) -> String {
        switch language.lowercased() {
        case "zh", "zh-cn", "cmn": "cmn"
        case "en": "en-us"
        default: language
        }
    }

    func initialize() throws -> Int {
        if let sampleRate { return sampleRate }
        // 20 ms chunks: the first one reaches the speaker early.
        let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 20, nil, Int32(espeakINITIALIZE_DONT_EXIT))
        guard rate > 0 else { throw SpeechError.engineUnavailable("espeak_Initialize failed (is espeak-ng-data installed?)") }
        espeak_SetSynthCallback { wav, count, events in
            guard let userdata = events?.pointee.user_data else { return 0 }
            let job = Unmanaged<SynthesisJob>.fromOpaque(userdata).takeUnretainedValue()
            if let wav, count > 0 {
                job.deliver(UnsafeBufferPointer(start: wav, count: Int(count)))
            }
            return job.isCancelled ? 1 : 0
        }
        sampleRate = Int(rate)
        return Int(rate)
    }

    public func synthesize(_ request: SpeechRequest) async throws -> SynthesizedSpeech {
        guard !request.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw SpeechError.emptyText }
        let rate = try initialize()
        try select(request)
        let (stream, continuation) = AsyncThrowingStream<[Float], any Error>.makeStream()
        let job = SynthesisJob(continuation)
        continuation.onTermination = { _ in job.cancel() }
        Task { self.run(job, request) }
        return SynthesizedSpeech(format: AudioFormat(sampleRate: rate, channelCount: 1), chunks: stream)
    }

    /// Applies the voice and parameters; called by `synthesize` too, so a bad voice fails the call itself.
    private func select(_ request: SpeechRequest) throws {
        guard espeak_SetVoiceByName(request.voice) == EE_OK else { throw SpeechError.unknownVoice(request.voice) }
        // Within espeak-ng's own limits; a refusal would otherwise leave the last request's rate.
        let rate = max(80, min(450, request.rate)), pitch = max(0, min(100, request.pitch))
        try Self.check(espeak_SetParameter(espeakRATE, Int32(rate), 0), "espeak_SetParameter(rate \(rate))")
        try Self.check(espeak_SetParameter(espeakPITCH, Int32(pitch), 0), "espeak_SetParameter(pitch \(pitch))")
    }

    /// Turns an espeak-ng result other than `EE_OK` into an error naming the call.
    static func check(_ result: espeak_ERROR, _ call: @autoclosure () -> String) throws(SpeechError) {
        guard result != EE_OK else { return }
        let meaning = switch result {
        case EE_BUFFER_FULL: "its buffer is full"
        case EE_NOT_FOUND: "not found"
        default: "internal error"
        }
        throw .engineUnavailable("\(call()) returned \(result.rawValue) (\(meaning))")
    }

    /// Runs one synthesis to its end; espeak_Synth calls back with each chunk as it goes.
    private func run(_ job: SynthesisJob, _ request: SpeechRequest) {
        // Another request may have changed the voice since `synthesize` checked it.
        do { try select(request) } catch { return job.finish(error) }
        let text = request.text
        let userdata = Unmanaged.passUnretained(job).toOpaque()  // `job` lives until this returns.
        let result = text.withCString { pointer in
            espeak_Synth(pointer, strlen(pointer) + 1, 0, POS_CHARACTER, 0,
                         UInt32(espeakCHARS_UTF8), nil, userdata)
        }
        withExtendedLifetime(job) {
            job.finish(result == EE_OK ? nil : SpeechError.engineUnavailable("espeak_Synth returned \(result.rawValue)"))
        }
    }
}

/// One synthesis in flight: where its chunks go, and whether the listener went away.
final class SynthesisJob: Sendable {
    private let continuation: AsyncThrowingStream<[Float], any Error>.Continuation
    private let cancelled = Atomic<Bool>(false)

    init(_ continuation: AsyncThrowingStream<[Float], any Error>.Continuation) {
        self.continuation = continuation
    }

    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }
    func cancel() { cancelled.store(true, ordering: .relaxed) }

    func deliver(_ samples: UnsafeBufferPointer<Int16>) {
        continuation.yield(samples.map { Float($0) / 32768 })
    }

    func finish(_ error: (any Error)?) {
        continuation.finish(throwing: error)
    }
}
