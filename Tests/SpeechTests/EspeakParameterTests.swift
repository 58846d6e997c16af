import HeraldCore
import Speech
import Testing

/// The rate reaches espeak-ng, also one outside its range (clamped to 80–450 words a minute),
/// and never stays at the previous request's.
@Suite struct EspeakParameterTests {
    func samples(rate: Int) async throws -> Int {
        let speech = try await EspeakSynthesizer.shared.synthesize(
            SpeechRequest(text: "Payment received: twelve dollars.", language: "en", voice: "en-us", rate: rate, pitch: 50))
        var count = 0
        for try await chunk in speech.chunks { count += chunk.count }
        return count
    }

    /// espeak-ng's length for one text at one rate varies by about 1% from run to run.
    func alike(_ first: Int, _ second: Int) -> Bool { abs(first - second) * 100 <= 3 * max(first, second) }

    @Test func outOfRangeRatesAreClampedAndApplied() async throws {
        let fastest = try await samples(rate: 450)
        let slowest = try await samples(rate: 80)
        #expect(slowest > fastest * 4, "the rate is applied: \(slowest) samples at 80, \(fastest) at 450")
        let above = try await samples(rate: 10_000)
        #expect(alike(above, fastest), "above the range: as fast as 450 (\(above) against \(fastest))")
        let below = try await samples(rate: 1)
        #expect(alike(below, slowest), "below it: as slow as 80 (\(below) against \(slowest))")
        let negative = try await samples(rate: -5)
        #expect(alike(negative, slowest), "\(negative) against \(slowest)")
    }
}
