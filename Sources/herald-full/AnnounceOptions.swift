import ArgumentParser
import Foundation
import HeraldApp
import HeraldConfig
import HeraldCore
import HeraldIntake
import Speech

/// Options of the commands that make a sound: `play`, `say`, `pay`.
struct AnnounceOptions: ParsableArguments {
    @Option(help: "critical, high, normal or low.")
    var priority: Priority?

    @Option(help: ArgumentHelp("A chime before the first word: a name from Sounds/chimes, a path, or none (default: the priority's).",
                               valueName: "NAME"))
    var chime: String?

    @Option(name: .customLong("room"), help: ArgumentHelp(
        "A room or group to say it in (repeat for more; default: the priority's rooms, else every room).", valueName: "NAME"))
    var rooms: [String] = []

    @Flag(help: "Print the log row as JSON.")
    var json = false

    @Flag(help: "Play in this process even when a daemon (herald serve) is running.")
    var local = false
}

extension Priority: ExpressibleByArgument {}

/// Announces `request`, turning Ctrl-C into a fade-out and restore, and prints the outcome.
func announce(_ request: AnnouncementRequest, options: GlobalOptions, announceOptions: AnnounceOptions) async throws {
    try await announce(options: options, announceOptions: announceOptions) { _ in request }
}

/// Announces the request `make` builds from the loaded configuration (a payment needs its
/// default currency to be parsed).
/// - Parameter amountForDaemon: a payment without `--currency`, as typed: a daemon reads it in the
///   currency of its own config, which may not be this one's (as the lean front sends it).
func announce(options: GlobalOptions, announceOptions: AnnounceOptions, amountForDaemon: String? = nil,
              _ make: (HeraldConfiguration) throws -> AnnouncementRequest) async throws {
    // The config only: through a daemon, the CLI needs neither the database nor the sound server.
    let configuration = try await options.loadConfiguration()
    var request: AnnouncementRequest
    do { request = try make(configuration) } catch { throw fail(error) }
    if let priority = announceOptions.priority { request.priority = priority }
    request.chime = announceOptions.chime
    if !announceOptions.rooms.isEmpty {
        // Checked here as the API checks `rooms`: nothing is queued for a room the house lacks.
        do { _ = try configuration.rooms.expand(announceOptions.rooms) } catch { throw fail("--room: \(error)") }
        request.rooms = announceOptions.rooms
    }
    try await checkSpeechOptions(request, speech: configuration.speech)
    let finalRequest = request
    var viaDaemon: AnnouncementRecord?
    if !announceOptions.local {
        do { viaDaemon = try await DaemonClient(settings: configuration.api).announce(finalRequest, amountAsTyped: amountForDaemon) } catch {
            throw fail(error)
        }
    }
    let outcome: AnnouncementDaemon.LocalOutcome
    if let viaDaemon {
        outcome = .finished(viaDaemon)
    } else {
        // The daemon's one path, in this process, for this one request, after the daemon's own
        // checks: what a daemon would refuse is refused here too, before any sink is touched.
        let context = try options.makeContext(configuration: configuration)
        let checked: AnnouncementRequest
        do { checked = try await checkedAsTheDaemonChecks(finalRequest, context: context) } catch { throw fail(error) }
        do {
            outcome = try await SignalCanceller.run { try await AnnouncementDaemon.announceOnce(checked, context: context) }
        } catch {
            throw fail(error)
        }
    }
    switch outcome {
    case .finished(let record):
        print(announceOptions.json ? try jsonString(record) : record.summaryLine)
    case .deferred(let record, let until):
        print(announceOptions.json ? try jsonString(record) : deferredLine(record, until: until))
    }
}

/// `request` as a daemon takes it: the wire request the daemon client would send, through the
/// intake's `PayloadValidator` with this config (text limit, language, voice, chime, rooms). A
/// local file (`herald play FILE`) has no wire form: its chime is checked alone.
func checkedAsTheDaemonChecks(_ request: AnnouncementRequest, context: HeraldContext) async throws -> AnnouncementRequest {
    let validator = PayloadValidator(configuration: context.configuration)
    guard let payload = DaemonClient.payload(for: request) else {
        if let chime = request.chime { _ = try validator.checkedChime(chime) }
        return request
    }
    var checked = try await validator.request(from: payload, source: request.source)
    checked.client = request.client  // not in the wire form: the daemon takes it from the connection
    return checked
}

/// What `herald say --local` prints for an announcement quiet hours hold: its row stays in the log
/// without an outcome, and `herald serve` says it when they end (as it does one sent to it).
func deferredLine(_ record: AnnouncementRecord, until: Date?) -> String {
    let end = until.map { " (\($0.formatted(date: .omitted, time: .shortened)))" } ?? ""
    return "deferred \(record.body): quiet hours; herald serve says it when they end\(end)"
}

/// `--lang` and `--voice`, checked as the API checks them, before anything is queued or played.
func checkSpeechOptions(_ request: AnnouncementRequest, speech: SpeechSettings) async throws {
    let isPayment = if case .payment = request.body { true } else { false }
    do {
        if let language = request.language { try await speech.checkLanguage(language, forPayment: isPayment, field: "--lang") }
        if let voice = request.voice { try await speech.checkVoice(voice, field: "--voice") }
    } catch {
        throw fail(error)
    }
}
