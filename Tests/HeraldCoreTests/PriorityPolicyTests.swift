import HeraldCore
import Testing

@Suite struct DurationTextTests {
    @Test(arguments: [("90s", 90_000), ("5m", 300_000), ("2h", 7_200_000), ("1d", 86_400_000), ("700ms", 700),
                      ("1.5s", 1500), (" 30 m ", 1_800_000), ("45", 45_000), ("0s", 0), ("2H", 7_200_000)])
    func durationsAreParsed(text: String, milliseconds: Int) {
        #expect(DurationText.parse(text)?.inMilliseconds == milliseconds)
    }

    @Test(arguments: ["", "m", "-5m", "5 minutes", "1e3s", "5m3s", ".5s", "5.s", "1.2.3s", "nan", "99999999999d"])
    func nonDurationsAreRefused(text: String) {
        #expect(DurationText.parse(text) == nil)
    }

    @Test func aPlainNumberTakesTheGivenUnit() {
        #expect(DurationText.parse("150", plainUnit: .milliseconds) == .milliseconds(150))
        #expect(DurationText.parse("2s", plainUnit: .milliseconds) == .seconds(2))
    }

    @Test func formattingPicksTheLargestExactUnit() {
        #expect(DurationText.format(.seconds(300)) == "5m")
        #expect(DurationText.format(.seconds(90)) == "90s")
        #expect(DurationText.format(.seconds(7200)) == "2h")
        #expect(DurationText.format(.seconds(7 * 86_400)) == "7d")
        #expect(DurationText.format(.milliseconds(700)) == "700ms")
        #expect(DurationText.format(.zero) == "0s")
    }
}

@Suite struct PriorityPolicyTests {
    @Test func theDefaultsFollowTheDesignTable() {
        let policies = PriorityPolicies.defaults
        #expect(policies[.critical].maxAge == .seconds(1800) && policies[.critical].mute == nil)
        #expect(policies[.high].maxAge == .seconds(300) && policies[.high].mute == nil)
        #expect(policies[.normal].maxAge == .seconds(1800) && policies[.normal].mute == nil)
        #expect(policies[.low].maxAge == .seconds(300) && policies[.low].mute == .respect)
    }

    @Test func criticalAlwaysOverridesAMute() {
        var policies = PriorityPolicies.defaults
        policies[.critical].mute = .respect  // Config refuses this; the policy holds even so.
        #expect(policies.mutePolicy(for: .critical, fallback: .respect) == .override)
    }

    @Test func theOthersUseTheirOwnPolicyElseTheFallback() {
        var policies = PriorityPolicies.defaults
        policies[.high].mute = .override
        #expect(policies.mutePolicy(for: .high, fallback: .respect) == .override)
        #expect(policies.mutePolicy(for: .normal, fallback: .respect) == .respect)
        #expect(policies.mutePolicy(for: .normal, fallback: .override) == .override)
        #expect(policies.mutePolicy(for: .low, fallback: .override) == .respect)
    }

    @Test func theSubscriptWritesOnlyItsPriority() {
        var policies = PriorityPolicies.defaults
        policies[.normal].maxAge = .seconds(90)
        #expect(policies[.normal].maxAge == .seconds(90))
        #expect(policies[.critical] == PriorityPolicies.defaults[.critical])
        #expect(policies[.high] == PriorityPolicies.defaults[.high])
        #expect(policies[.low] == PriorityPolicies.defaults[.low])
    }
}
