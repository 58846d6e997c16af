import Foundation
import HeraldCore
import Testing

/// The arithmetic of noise compensation: the gain law on PulseAudio's cubic volume curve, the
/// percentile floor, the speech-band meter, and what a room's microphone is allowed to hear.
@Suite struct NoiseCompensationTests {
    let settings = NoiseSettings(source: .named("mic"), thresholdDB: -50, ratio: 1, maxGainDB: 12)

    @Test func theGainIsTheNoiseOverTheThresholdTimesTheRatioClampedToTheMaximum() {
        #expect(NoiseLaw.gainDB(floorDBFS: -60, settings: settings) == 0)
        #expect(NoiseLaw.gainDB(floorDBFS: -40, settings: settings) == 10)
        #expect(NoiseLaw.gainDB(floorDBFS: -25, settings: settings) == 12)
        var steep = settings
        steep.ratio = 0.5
        #expect(NoiseLaw.gainDB(floorDBFS: -40, settings: steep) == 5)
    }

    /// PulseAudio's software volume is cubic (pa_sw_volume_to_dB is 60·log10 of the linear
    /// fraction): +10 dB takes 40% to 58.7%, not 50%; +12 dB takes 50% to 79.2%.
    @Test func raisingByDecibelsFollowsTheCubicCurve() {
        let forty = Volume(percent: 40)
        let raised = NoiseLaw.raised(forty, byDB: 10)
        #expect(abs(NoiseLaw.decibels(of: raised) - NoiseLaw.decibels(of: forty) - 10) < 0.01)
        #expect(abs(Double(raised.raw) / Double(Volume.norm.raw) - 0.4 * pow(10, 10.0 / 60)) < 0.0001)
        #expect(raised.percent == 59)
        // The samples are scaled by the cube of the volume: the amplitude ratio is 10^(10/20).
        let amplitude = pow(Double(raised.raw) / Double(forty.raw), 3)
        #expect(abs(20 * log10(amplitude) - 10) < 0.01)
        #expect(NoiseLaw.raised(Volume(percent: 50), byDB: 12).percent == 79)
        #expect(abs(NoiseLaw.decibels(of: Volume.norm)) < 1e-9)
    }

    @Test func theGainLiftsTheTargetAndTheFloorOfTheRaiseButNeverAboveTheMaximum() {
        var safeguard = SafeguardSettings()
        safeguard.minVolume = Volume(percent: 40)
        safeguard.targetVolume = Volume(percent: 50)
        safeguard.maxVolume = Volume(percent: 75)
        let raised = NoiseLaw.applied(10, to: safeguard)
        #expect(raised.targetVolume == NoiseLaw.raised(Volume(percent: 50), byDB: 10))
        #expect(raised.minVolume == NoiseLaw.raised(Volume(percent: 40), byDB: 10))
        let capped = NoiseLaw.applied(12, to: safeguard)
        #expect(capped.targetVolume == Volume(percent: 75) && capped.minVolume <= capped.targetVolume)
        #expect(NoiseLaw.applied(0, to: safeguard) == safeguard)
    }

    @Test func theFloorIsTheTenthPercentileSoAVoiceOrADoorSlamDoesNotLiftIt() {
        var floor = NoiseFloor(window: .seconds(30))
        for _ in 0..<19 { floor.add(-60) }
        #expect(floor.floor == nil, "under two seconds heard is no floor yet")
        floor.add(-60)
        #expect(floor.floor == -60)
        // 25 s of a steady room, then a 2 s door slam and 3 s of someone talking.
        floor.reset()
        for _ in 0..<250 { floor.add(-55) }
        for _ in 0..<20 { floor.add(-10) }
        for _ in 0..<30 { floor.add(-30) }
        #expect(floor.floor == -55)
        // A grinder that stays on for the whole window does lift it.
        for _ in 0..<300 { floor.add(-35) }
        #expect(floor.floor == -35, "the window holds 30 s of 100 ms blocks: the 300 latest")
    }

    @Test func theMeterReadsASpeechBandToneAtItsLevelAndIgnoresRumbleAndSilence() {
        func tone(_ hertz: Double, amplitude: Double, seconds: Double = 1) -> [Float] {
            (0..<Int(seconds * Double(SpeechBandMeter.sampleRate))).map {
                Float(amplitude * sin(2 * .pi * hertz * Double($0) / Double(SpeechBandMeter.sampleRate)))
            }
        }
        var meter = SpeechBandMeter()
        let blocks = meter.feed(tone(1_000, amplitude: 0.1))
        #expect(blocks.count == 10)
        // RMS of a sine is its amplitude / √2: 0.1 is -23 dBFS.
        let expected = 20 * log10(0.1 / 2.0.squareRoot())
        #expect(blocks.dropFirst().allSatisfy { abs($0.dBFS - expected) < 0.5 }, "\(blocks.map(\.dBFS)) vs \(expected)")
        var rumble = SpeechBandMeter()
        let low = rumble.feed(tone(50, amplitude: 0.1)).dropFirst(2)
        #expect(low.allSatisfy { $0.dBFS < expected - 25 }, "50 Hz hum does not mask words: \(low.map(\.dBFS))")
        var dead = SpeechBandMeter()
        let silent = dead.feed([Float](repeating: 0, count: 1_600))
        #expect(silent.count == 2 && silent.allSatisfy { $0.digitalSilence && $0.dBFS == SpeechBandMeter.silenceDBFS })
    }

    @Test func nothingIsMeasuredWhileHeraldSpeaksInTheRoomNorForTheSenseDelayAfter() {
        let noise = RoomNoise()
        noise.configure(["counter": settings])
        noise.listening("counter", source: "mic", problem: nil)
        let start = ContinuousClock.now
        let quiet = SpeechBandMeter.Block(dBFS: -60, digitalSilence: false)
        let loud = SpeechBandMeter.Block(dBFS: -20, digitalSilence: false)
        for index in 0..<30 { noise.heard("counter", quiet, at: start + .milliseconds(100 * index)) }
        let given = noise.hold("counter")
        #expect(given?.floorDBFS == -60 && given?.gainDB == 0)
        // Its own voice, at the microphone, while it speaks.
        for index in 30..<400 { noise.heard("counter", loud, at: start + .milliseconds(100 * index)) }
        let released = start + .seconds(40)
        noise.release("counter", now: released)
        // The echo within the sense delay.
        for index in 0..<4 { noise.heard("counter", loud, at: released + .milliseconds(100 * index)) }
        #expect(noise.reading("counter")?.floorDBFS == -60, "Herald never hears itself and climbs")
        // The room after it: heard.
        for index in 6..<400 { noise.heard("counter", loud, at: released + .milliseconds(100 * index)) }
        #expect(noise.reading("counter")?.floorDBFS == -20)
        #expect(noise.reading("counter")?.gainDB == 12)
    }

    @Test func aDeadMicrophoneIsSaidAndGivesNoGainAndANewSourceStartsAfresh() {
        let noise = RoomNoise()
        noise.configure(["counter": settings])
        noise.listening("counter", source: "mic", problem: nil)
        let start = ContinuousClock.now
        for index in 0..<30 { noise.heard("counter", .init(dBFS: -30, digitalSilence: false), at: start + .milliseconds(100 * index)) }
        #expect(noise.reading("counter")?.gainDB == 12)
        for index in 30..<60 { noise.heard("counter", .init(dBFS: SpeechBandMeter.silenceDBFS, digitalSilence: true), at: start + .milliseconds(100 * index)) }
        let dead = noise.reading("counter")
        #expect(dead?.problem?.contains("digital silence") == true && dead?.gainDB == 0 && dead?.floorDBFS == nil)
        noise.listening("counter", source: "other-mic", problem: nil)
        #expect(noise.reading("counter")?.problem == nil && noise.reading("counter")?.floorDBFS == nil)
        noise.listening("counter", source: nil, problem: "no source mic")
        #expect(noise.reading("counter")?.gainDB == 0)
        #expect(noise.reading("elsewhere") == nil, "a room without noise: has no reading")
        noise.configure([:])
        #expect(noise.reading("counter") == nil)
    }
}

extension NoiseCompensationTests {
    @Test func oneMicrophoneBetweenTwoRoomsIsDeafWhileEitherSpeaksAndAReloadKeepsTheHold() {
        let noise = RoomNoise()
        noise.configure(["counter": settings, "door": settings])
        noise.listening("counter", source: "mic", problem: nil)
        noise.listening("door", source: "mic", problem: nil)
        let start = ContinuousClock.now
        for index in 0..<30 {
            for room in ["counter", "door"] { noise.heard(room, .init(dBFS: -60, digitalSilence: false), at: start + .milliseconds(100 * index)) }
        }
        _ = noise.hold("counter")
        // The door's meter hears the counter's announcement through the shared microphone.
        for index in 30..<400 { noise.heard("door", .init(dBFS: -20, digitalSilence: false), at: start + .milliseconds(100 * index)) }
        #expect(noise.reading("door")?.floorDBFS == -60)
        // A reload that changes the counter's window mid-announcement keeps it held.
        var longer = settings
        longer.window = .seconds(60)
        noise.configure(["counter": longer, "door": settings])
        noise.listening("counter", source: "mic", problem: nil)
        for index in 400..<800 { noise.heard("counter", .init(dBFS: -20, digitalSilence: false), at: start + .milliseconds(100 * index)) }
        #expect(noise.reading("counter")?.floorDBFS == nil, "nothing heard while held, after the reload too")
        // The same microphone found again after a server restart keeps its floor.
        noise.listening("door", source: nil, problem: "no sound server")
        noise.listening("door", source: "mic", problem: nil)
        #expect(noise.reading("door")?.floorDBFS == -60)
    }
}
