import HeraldCore
import Testing

@Suite struct VolumeTests {
    @Test(arguments: [(0.0, 0 as UInt32), (100, 65536), (70, 45875), (30, 19661), (150, 98304)])
    func percentagesMatchPactl(percent: Double, raw: UInt32) {
        #expect(Volume(percent: percent).raw == raw)
        #expect(Volume(raw: raw).percent == Int(percent))
    }

    @Test func rampGoesFromStartToEndInSteps() {
        let from = ChannelVolumes([Volume(percent: 80)]), to = ChannelVolumes([Volume(percent: 20)])
        #expect(SafeguardPolicy.ramp(from: from, to: to, step: 0, steps: 4) == from)
        #expect(SafeguardPolicy.ramp(from: from, to: to, step: 2, steps: 4).channels[0].percent == 50)
        #expect(SafeguardPolicy.ramp(from: from, to: to, step: 4, steps: 4) == to)
    }
}
