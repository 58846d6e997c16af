import HeraldCore
import HeraldTesting
import Logging
import Testing

/// After a sound-server restart the streams are new: the ones Herald ducked are found again by
/// their application's name, and come back with stream-restore's copy of Herald's duck.
@Suite struct ReturningStreamsTests {
    let radioDuck = DuckPlan(streamIndex: 7, original: percent(80, 80), held: percent(80, 80), ducked: percent(24, 24),
                             silenced: false, applicationName: "radio")
    let silencedDuck = DuckPlan(streamIndex: 8, original: percent(60, 60), held: percent(60, 60), ducked: percent(60, 60),
                                silenced: true, applicationName: "tv")

    func stream(_ index: UInt32, _ name: String, _ volumes: ChannelVolumes, muted: Bool = false) -> StreamState {
        StreamState(index: index, sinkIndex: 0, volumes: volumes, muted: muted, applicationName: name,
                    mediaRole: nil, isHerald: false)
    }

    @Test func aStreamBackAtHeraldsDuckIsPutBackUnderItsNewIndex() {
        let actions = RestorePolicy.returningStreams([radioDuck], among: [stream(2, "radio", percent(24, 24))])
        #expect(actions.streams.map(\.streamIndex) == [2])
        #expect(actions.streams.map(\.original) == [percent(80, 80)])
        #expect(actions.awaitedStreams.isEmpty)
    }

    @Test func aStreamBackMutedFromASilencedDuckIsUnmuted() {
        let actions = RestorePolicy.returningStreams([silencedDuck], among: [stream(3, "tv", percent(60, 60), muted: true)])
        #expect(actions.unmuteStreams == [3])
        #expect(actions.streams.isEmpty)
    }

    @Test func aValueOutsideTheDucksRangeIsTheUsersOrTheServersAndKept() {
        // A server with no saved state brings it back at 100%: not Herald's, left alone.
        let actions = RestorePolicy.returningStreams([radioDuck, silencedDuck],
                                                     among: [stream(2, "radio", percent(100, 100)), stream(3, "tv", percent(60, 60))])
        #expect(actions.streams.isEmpty && actions.unmuteStreams.isEmpty)
        #expect(actions.keptUserChanges.count == 2)
    }

    @Test func anotherApplicationsStreamIsNeverTakenForTheDucksAndAbsentOnesAreAwaited() {
        let herald = StreamState(index: 1, sinkIndex: 0, volumes: percent(24, 24), muted: false, applicationName: "radio",
                                 mediaRole: nil, isHerald: true)
        let actions = RestorePolicy.returningStreams([radioDuck, silencedDuck],
                                                     among: [herald, stream(4, "game", percent(24, 24), muted: true)])
        #expect(actions.isEmpty)
        #expect(actions.awaitedStreams == [radioDuck, silencedDuck])
    }

    @Test func twoDucksOfOneApplicationTakeOneStreamEach() {
        var second = radioDuck
        second.streamIndex = 9
        let actions = RestorePolicy.returningStreams([radioDuck, second], among: [stream(5, "radio", percent(30, 30))])
        #expect(actions.streams.map(\.streamIndex) == [5])
        #expect(actions.awaitedStreams == [second])
    }

    @Test func aRecoveryAfterARestartPutsBackTheStreamsPresentAndAwaitsTheRest() async throws {
        let sound = InMemorySoundSystem(sink: nullSink(volumes: percent(20, 20)))
        await sound.restartWithDefaults(sink: nullSink(volumes: percent(100, 100)))
        await sound.streamAppears(stream(3, "tv", percent(60, 60), muted: true))
        var entry = JournalEntry(sinkName: "speaker", originalVolumes: percent(20, 20), originalMuted: false,
                                 setVolumes: percent(70, 70), unmuted: false, ducks: [radioDuck, silencedDuck], processID: 1)
        entry.serverInstance = 1
        let journal = InMemoryJournal(entry: entry)
        let guarded = Safeguard(sound: sound, journal: journal, settings: .defaults, clock: ImmediateClock(),
                                logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, processID: 42)
        let restoration = try #require(try await guarded.recoverPending().first)
        #expect(await sound.sink.volumes == percent(20, 20))
        #expect(await sound.streamList.first?.muted == false, "the tv, back muted, unmuted")
        #expect(restoration.actions.awaitedStreams == [radioDuck])
        #expect(await journal.entry == nil)
    }
}
