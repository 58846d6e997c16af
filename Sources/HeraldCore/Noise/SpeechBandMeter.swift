import Foundation

/// The level of a microphone's signal in the band speech needs (300 Hz to 3.4 kHz, the telephone
/// band), block by block: what competes with an announcement. Rumble below and hiss above it do
/// not mask words and do not count. Keeps no audio: each sample is filtered, squared and summed.
public struct SpeechBandMeter: Sendable {
    /// The rate it is fed at (the record stream asks PulseAudio for it).
    public static let sampleRate = 8_000
    /// 100 ms blocks.
    public static let blockSamples = 800
    /// The level a block of digital silence is given.
    public static let silenceDBFS = -120.0

    private var highPass: Biquad
    private var lowPass: Biquad
    private var sumOfSquares = 0.0
    private var samples = 0
    private var anyNonZero = false

    public init() {
        highPass = Biquad.highPass(cutoff: 300, sampleRate: Double(Self.sampleRate))
        lowPass = Biquad.lowPass(cutoff: 3_400, sampleRate: Double(Self.sampleRate))
    }

    /// One finished block: its RMS level in dBFS (1.0 RMS is 0 dBFS), and whether every sample
    /// of it was exactly zero (a muted or dead microphone, not a quiet room).
    public struct Block: Sendable, Equatable {
        public var dBFS: Double
        public var digitalSilence: Bool

        public init(dBFS: Double, digitalSilence: Bool) {
            self.dBFS = dBFS
            self.digitalSilence = digitalSilence
        }
    }

    /// Feeds samples; returns the blocks they finished.
    public mutating func feed(_ input: UnsafeBufferPointer<Float>) -> [Block] {
        var finished: [Block] = []
        for sample in input {
            if sample != 0 { anyNonZero = true }
            let filtered = lowPass.process(highPass.process(Double(sample)))
            sumOfSquares += filtered * filtered
            samples += 1
            if samples == Self.blockSamples {
                let rms = (sumOfSquares / Double(samples)).squareRoot()
                finished.append(Block(dBFS: rms > 0 ? max(20 * log10(rms), Self.silenceDBFS) : Self.silenceDBFS,
                                      digitalSilence: !anyNonZero))
                sumOfSquares = 0
                samples = 0
                anyNonZero = false
            }
        }
        return finished
    }

    /// Feeds an array of samples (tests, calibration).
    public mutating func feed(_ input: [Float]) -> [Block] { input.withUnsafeBufferPointer { feed($0) } }
}

/// A second-order IIR section (RBJ's audio EQ cookbook), Butterworth (Q = 1/√2).
struct Biquad: Sendable {
    let b0, b1, b2, a1, a2: Double
    private var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

    init(b0: Double, b1: Double, b2: Double, a0: Double, a1: Double, a2: Double) {
        self.b0 = b0 / a0
        self.b1 = b1 / a0
        self.b2 = b2 / a0
        self.a1 = a1 / a0
        self.a2 = a2 / a0
    }

    static func highPass(cutoff: Double, sampleRate: Double) -> Biquad {
        let (cosine, alpha) = coefficients(cutoff: cutoff, sampleRate: sampleRate)
        return Biquad(b0: (1 + cosine) / 2, b1: -(1 + cosine), b2: (1 + cosine) / 2, a0: 1 + alpha, a1: -2 * cosine, a2: 1 - alpha)
    }

    static func lowPass(cutoff: Double, sampleRate: Double) -> Biquad {
        let (cosine, alpha) = coefficients(cutoff: cutoff, sampleRate: sampleRate)
        return Biquad(b0: (1 - cosine) / 2, b1: 1 - cosine, b2: (1 - cosine) / 2, a0: 1 + alpha, a1: -2 * cosine, a2: 1 - alpha)
    }

    private static func coefficients(cutoff: Double, sampleRate: Double) -> (cosine: Double, alpha: Double) {
        let omega = 2 * Double.pi * cutoff / sampleRate
        return (cos(omega), sin(omega) / (2 * 0.5.squareRoot()))
    }

    mutating func process(_ x: Double) -> Double {
        let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        (x2, x1, y2, y1) = (x1, x, y1, y)
        return y
    }
}
