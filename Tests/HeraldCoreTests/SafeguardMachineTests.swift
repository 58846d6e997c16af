import HeraldCore
import HeraldTesting
import Logging
import Testing

/// The safeguard's decisions without any I/O: every race of issue 7 replayed as a sequence of events.
@Suite struct SafeguardMachineTests {
    func machine(_ settings: SafeguardSettings = .defaults) -> SafeguardMachine {
        SafeguardMachine(settings: settings, processID: 1)
    }

    func proceed(_ opening: SafeguardMachine.Opening) throws -> [SafeguardMachine.Action] {
        guard case .proceed(let actions) = opening else {
            Issue.record("expected proceed, got \(opening)")
            throw CancellationError()
        }
        return actions
    }

    @Test func aRaisedSinkHoldsTheRadioAsHeardBeforeThenRaisesThenRampsDown() throws {
        var safeguard = machine()
        let actions = try proceed(safeguard.open(sink: nullSink(volumes: percent(20, 20)),
                                                 streams: [musicStream(index: 7, volumes: percent(80, 80))], mute: .override))
        guard case .saveJournal = actions.first else { Issue.record("journal first: \(actions)"); return }
        guard case .setStreamVolume(7, let held) = actions[1], case .raiseSink(_, unmute: false, volumes: let raised?) = actions[2] else {
            Issue.record("hold the radio, then raise: \(actions)")
            return
        }
        #expect(raised == percent(70, 70))
        // 80% x 20/70 = 22.86%: heard as 0.7 x 0.2286 = 0.16, exactly what the listener heard before.
        #expect(held.loudest.exactPercent * 70 <= 80 * 20 + 0.001)
        #expect(held.loudest.exactPercent * 70 > 80 * 20 - 0.2, "rounded down by at most a raw unit")
        #expect(safeguard.isRamping)
        var last = held
        while safeguard.isRamping {
            for case .setStreamVolume(7, let volumes) in safeguard.tick() {
                #expect(volumes.loudest <= last.loudest, "the ramp only goes down")
                last = volumes
            }
        }
        // duck_level 30% of what was heard: 0.3 x 0.16 = 0.048 at the 70% sink.
        #expect(abs(last.loudest.exactPercent * 0.7 - 0.3 * 16) < 0.01)
    }

    /// Between back-to-back announcements: a sink muted or lowered below the session's own level
    /// needs a fresh open; one left alone, or made louder, does not (rule 8: no pumping).
    @Test func aSessionIsStillReadyUnlessItsSinkWasMutedOrLowered() throws {
        var safeguard = machine()
        #expect(!safeguard.isStillReady(nullSink(volumes: percent(70, 70))), "a closed safeguard holds no session")
        _ = try proceed(safeguard.open(sink: nullSink(volumes: percent(20, 20), muted: true), streams: [], mute: .override))
        #expect(safeguard.isStillReady(nullSink(volumes: percent(70, 70))))
        #expect(safeguard.isStillReady(nullSink(volumes: percent(90, 90))))
        #expect(!safeguard.isStillReady(nullSink(volumes: percent(70, 70), muted: true)))
        #expect(!safeguard.isStillReady(nullSink(volumes: percent(50, 50))))
        // Found loud enough: its own level is what it found.
        var loud = machine()
        _ = loud.open(sink: nullSink(volumes: percent(85, 85)), streams: [], mute: .override)
        #expect(loud.isStillReady(nullSink(volumes: percent(85, 85))))
        #expect(!loud.isStillReady(nullSink(volumes: percent(75, 75))))
    }

    @Test func aMutedSinkSilencesTheOtherStreamsBeforeUnmuting() throws {
        var safeguard = machine()
        let actions = try proceed(safeguard.open(sink: nullSink(volumes: percent(20, 20), muted: true),
                                                 streams: [musicStream(index: 7, volumes: percent(80, 80))], mute: .override))
        let silence = try #require(actions.firstIndex(of: .setStreamMute(index: 7, true)))
        let unmute = try #require(actions.firstIndex {
            if case .raiseSink(sink: "speaker", unmute: true, _) = $0 { return true } else { return false }
        })
        #expect(silence < unmute)
        #expect(!safeguard.isRamping, "a silenced stream has no ramp")
        let (closing, _) = safeguard.beginClose(
            sink: nullSink(volumes: percent(70, 70)),
            streams: [{ var radio = musicStream(index: 7, volumes: percent(80, 80)); radio.muted = true; return radio }()])
        let remute = try #require(closing.firstIndex(of: .setSinkMute(sink: "speaker", true)))
        let back = try #require(closing.firstIndex(of: .setStreamMute(index: 7, false)))
        #expect(remute < back, "the sink is muted again before the radio is unmuted")
        #expect(safeguard.finish() == [.clearJournal(sink: "speaker")])
    }

    @Test func aStreamAppearingAfterTheCloseIsLeftAlone() throws {
        var safeguard = machine()
        _ = try proceed(safeguard.open(sink: nullSink(volumes: percent(20, 20)), streams: [], mute: .override))
        _ = safeguard.beginClose(sink: nullSink(volumes: percent(70, 70)), streams: [])
        #expect(safeguard.streamAppeared(musicStream(index: 9, volumes: percent(50, 50))).isEmpty)
        _ = safeguard.finish()
        #expect(safeguard.streamAppeared(musicStream(index: 9, volumes: percent(50, 50))).isEmpty)
    }

    @Test func twoStreamsAppearingTogetherAreBothJournaledAndDucked() throws {
        var safeguard = machine()
        _ = try proceed(safeguard.open(sink: nullSink(volumes: percent(80, 80)), streams: [], mute: .override))
        let first = safeguard.streamAppeared(musicStream(index: 3, volumes: percent(60, 60)))
        let second = safeguard.streamAppeared(musicStream(index: 4, volumes: percent(40, 40)))
        #expect(safeguard.streamAppeared(musicStream(index: 4, volumes: percent(40, 40))).isEmpty, "known already")
        guard case .saveJournal(let journaled) = second.first else { Issue.record("journal first: \(second)"); return }
        #expect(journaled.ducks.map(\.streamIndex) == [3, 4])
        #expect(!first.isEmpty)
        while safeguard.isRamping { _ = safeguard.tick() }
        #expect(safeguard.entry?.ducks.map(\.ducked) == [percent(18, 18), percent(12, 12)])
    }

    @Test func aValueTheUserSetsUnderTheRampIsTheUsers() throws {
        var safeguard = machine()
        _ = try proceed(safeguard.open(sink: nullSink(volumes: percent(80, 80)),
                                       streams: [musicStream(index: 7, volumes: percent(80, 80))], mute: .override))
        _ = safeguard.tick()
        safeguard.observe([musicStream(index: 7, volumes: percent(65, 65))])
        #expect(!safeguard.isRamping, "the ramp stops for the value the user changed")
        let settled = safeguard.tick()
        guard case .saveJournal(let entry) = settled.first, settled.count == 1 else {
            Issue.record("only the journal, saying the ramps are over: \(settled)")
            return
        }
        #expect(entry.streamsSettled == true)
        #expect(safeguard.tick().isEmpty)
        let (closing, restore) = safeguard.beginClose(sink: nullSink(volumes: percent(80, 80)),
                                                      streams: [musicStream(index: 7, volumes: percent(65, 65))])
        #expect(closing.isEmpty, "nothing to put back: the 65% is the user's")
        #expect(restore.streams.isEmpty)
        #expect(!safeguard.keptUserChanges.isEmpty)
    }

    /// The journal says when the ramps are over (after their last step) and that they run again
    /// (before the close's first step back): a crash in between reads a changed stream as a person's.
    @Test func theJournalSaysWhenTheRampsAreOverAndWhenTheyRunAgain() throws {
        var safeguard = machine()
        let opening = try proceed(safeguard.open(sink: nullSink(volumes: percent(80, 80)),
                                                 streams: [musicStream(index: 7, volumes: percent(80, 80))], mute: .override))
        guard case .saveJournal(let first) = opening.first else { Issue.record("\(opening)"); return }
        #expect(first.streamsSettled == false, "ramping down")
        var last: [SafeguardMachine.Action] = []
        while safeguard.isRamping { last = safeguard.tick() }
        guard case .setStreamVolume = last.first, case .saveJournal(let done) = last.last else { Issue.record("\(last)"); return }
        #expect(done.streamsSettled == true, "journaled after the last step")
        let ducked = try #require(safeguard.entry?.ducks.first?.ducked)
        let (closing, _) = safeguard.beginClose(sink: nullSink(volumes: percent(80, 80)),
                                                streams: [musicStream(index: 7, volumes: ducked)])
        guard case .saveJournal(let back) = closing.first else { Issue.record("\(closing)"); return }
        #expect(back.streamsSettled == false, "the ramps back start")
    }

    @Test func aValueTheUserSetsWhileTheRadioFadesBackIsTheUsers() throws {
        var safeguard = machine()
        _ = try proceed(safeguard.open(sink: nullSink(volumes: percent(80, 80)),
                                       streams: [musicStream(index: 7, volumes: percent(80, 80))], mute: .override))
        while safeguard.isRamping { _ = safeguard.tick() }
        let ducked = try #require(safeguard.entry?.ducks.first?.ducked)
        _ = safeguard.beginClose(sink: nullSink(volumes: percent(80, 80)), streams: [musicStream(index: 7, volumes: ducked)])
        #expect(safeguard.isRamping)
        _ = safeguard.tick()
        safeguard.observe([musicStream(index: 7, volumes: percent(65, 65))])
        #expect(safeguard.tick().isEmpty)
        #expect(safeguard.finish() == [.clearJournal(sink: "speaker")])
    }

    @Test func aSinkThatRoundsVolumesIsComparedAsItReportedItself() throws {
        var safeguard = machine()
        _ = try proceed(safeguard.open(sink: nullSink(volumes: percent(20, 20)), streams: [], mute: .override))
        let rounded = percent(69, 69)
        #expect(safeguard.sinkReported(nullSink(volumes: rounded)).count == 1, "journaled again with the reported value")
        #expect(safeguard.entry?.setVolumes == rounded)
        let (closing, _) = safeguard.beginClose(sink: nullSink(volumes: rounded), streams: [])
        #expect(closing == [.setSinkVolume(sink: "speaker", percent(20, 20))], "Herald's own raise, restored")
    }

    @Test func respectSuppressesButCriticalAlwaysOverrides() {
        var safeguard = machine()
        #expect(safeguard.open(sink: nullSink(volumes: percent(20, 20), muted: true), streams: [], mute: .respect) == .suppressMuted)
        var policies = PriorityPolicies.defaults
        policies[.critical].mute = .respect
        #expect(policies.mutePolicy(for: .critical, fallback: .respect) == .override)
        #expect(policies.mutePolicy(for: .normal, fallback: .respect) == .respect)
    }

    /// Found by the three-room soak (seed 28): a person set the sink to 92%, then 100%, while an
    /// announcement held it; the server then came back at its defaults and Herald put back the 25%
    /// from before. The person's values are journaled as they come, and put back instead.
    @Test func aPersonsSinkChangeWhileOpenIsJournaledAndPutBackAfterAFreshServer() throws {
        var safeguard = machine()
        _ = try proceed(safeguard.open(sink: nullSink(volumes: percent(25, 25), muted: true), streams: [], mute: .override))
        let raised = try #require(safeguard.entry?.setVolumes)
        #expect(safeguard.sinkObserved(nullSink(volumes: raised)).isEmpty, "Herald's own raise is not a person's")
        let first = safeguard.sinkObserved(nullSink(volumes: percent(92, 92)))
        guard case .saveJournal(let entry)? = first.first else { Issue.record("not journaled: \(first)"); return }
        #expect(entry.userVolumes == percent(92, 92) && entry.userMuted == nil, "the mute was not touched")
        _ = safeguard.sinkObserved(nullSink(volumes: percent(100, 100)))
        let last = try #require(safeguard.entry)
        #expect(last.userVolumes == percent(100, 100))
        let back = RestorePolicy.actions(for: last, sink: nullSink(volumes: percent(100, 100)), streams: [], knowledge: .afterServerRestart)
        #expect(back.sinkVolumes == nil && back.sinkMuted == true, "100% as the person set it, muted as before: \(back)")
        // Without the person's values, the sink went back to 25%.
        var before = last
        before.userVolumes = nil
        #expect(RestorePolicy.actions(for: before, sink: nullSink(volumes: percent(100, 100)), streams: [],
                                      knowledge: .afterServerRestart).sinkVolumes == percent(25, 25))
    }

    @Test func aSinkHeraldLeftAloneIsNotJournaledWhenAPersonChangesIt() throws {
        var safeguard = machine()
        _ = try proceed(safeguard.open(sink: nullSink(volumes: percent(80, 80)), streams: [], mute: .override))
        #expect(safeguard.sinkObserved(nullSink(volumes: percent(40, 40))).isEmpty)
    }
}

/// The executor: jobs in order, against the in-memory server.
@Suite struct SafeguardExecutorTests {
    func safeguard(_ sound: InMemorySoundSystem, _ journal: InMemoryJournal) -> Safeguard {
        Safeguard(sound: sound, journal: journal, settings: .defaults, clock: ImmediateClock(),
                  logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, processID: 42)
    }

    @Test func aStreamAppearingBetweenTheSnapshotAndTheWatchIsDucked() async throws {
        let sound = InMemorySoundSystem(sink: nullSink(volumes: percent(80, 80)))
        await sound.setAfterNextStreamsRead { await $0.streamAppears(musicStream(index: 5, volumes: percent(50, 50))) }
        let journal = InMemoryJournal()
        let guarded = safeguard(sound, journal)
        _ = try await guarded.open(sinkName: "speaker", mute: .override)
        for _ in 0..<2000 where await sound.streamList.first?.volumes != percent(15, 15) { await Task.yield() }
        #expect(await sound.streamList.first?.volumes == percent(15, 15))
        let restoration = try #require(await guarded.close())
        #expect(restoration.entry.ducks.map(\.streamIndex) == [5])
        #expect(await sound.streamList.first?.volumes == percent(50, 50))
        #expect(await journal.entry == nil)
    }

    @Test func twoStreamsAppearingTogetherAreBothRestoredAndNoDuckLandsAfterTheClose() async throws {
        let sound = InMemorySoundSystem(sink: nullSink(volumes: percent(20, 20)))
        let journal = InMemoryJournal()
        let guarded = safeguard(sound, journal)
        _ = try await guarded.open(sinkName: "speaker", mute: .override)
        await sound.streamAppears(musicStream(index: 3, volumes: percent(60, 60)))
        await sound.streamAppears(musicStream(index: 4, volumes: percent(40, 40)))
        let restoration = try #require(await guarded.close())
        for _ in 0..<200 { await Task.yield() }
        let streams = await sound.streamList
        #expect(streams.map(\.volumes) == [percent(60, 60), percent(40, 40)], "both back, none ducked after the close")
        #expect(restoration.failures.isEmpty)
        #expect(await journal.entry == nil)
        #expect(await sound.sink.volumes == percent(20, 20))
    }

    @Test func aSinkThatRoundsVolumesIsStillRestored() async throws {
        let sound = InMemorySoundSystem(sink: nullSink(volumes: percent(20, 20)))
        await sound.setSinkVolumeStep(1000)
        let guarded = safeguard(sound, InMemoryJournal())
        _ = try await guarded.open(sinkName: "speaker", mute: .override)
        #expect(await sound.sink.volumes != percent(70, 70), "the device rounded Herald's 70%")
        let restoration = try #require(await guarded.close())
        #expect(restoration.actions.keptUserChanges.isEmpty, "Herald's own rounded raise is not taken for the user's")
        let restored = Int(await sound.sink.volumes.loudest.raw)
        #expect(abs(restored - Int(Volume(percent: 20).raw)) <= 500, "back to 20% (as the device rounds it)")
    }

}
