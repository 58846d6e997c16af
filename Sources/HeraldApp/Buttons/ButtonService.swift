import Foundation
import HeraldConfig
import HeraldCore
import HeraldStore
import Logging
import Speech

/// Carries out a button's presses (`buttons:`; docs/buttons.md): acknowledge, repeat, today's
/// total, a call for help, quiet, volume. Presses come from the MQTT link (zigbee2mqtt) and
/// `POST /v1/buttons/{name}/{event}`; each is logged in `button_press` with what it did.
///
/// A bouncing button or a flood runs each action at most once a second per button: the rest are
/// ignored, and logged once per flood.
public actor ButtonService {
    /// What a press did.
    public enum Result: String, Sendable {
        /// It did what it is for.
        case done
        /// There was nothing to do (no reminder waiting, nothing said yet); said so briefly.
        case nothing
        /// An unknown button or event, or within a second of the same action: nothing done.
        case ignored
        /// Not allowed from where it came (a payment's repeat over HTTP where payments must be signed).
        case refused
        case failed
    }

    let live: LiveContext
    let daemon: AnnouncementDaemon
    let reminders: ReminderService?
    let now: @Sendable () -> Date
    /// When each button's action last ran, and how many presses were ignored since.
    private var lastRun: [String: (at: ContinuousClock.Instant, ignored: Int)] = [:]
    private var volumesRead = false

    public init(live: LiveContext, daemon: AnnouncementDaemon, reminders: ReminderService?, now: @escaping @Sendable () -> Date = { Date() }) {
        self.live = live
        self.daemon = daemon
        self.reminders = reminders
        self.now = now
    }

    var context: HeraldContext { live.value }
    var logger: Logger { context.logger }

    /// Reads the rooms' volumes the buttons set before this start. Called once at start; a press
    /// before it reads them first.
    public func start() async {
        guard !volumesRead else { return }
        volumesRead = true
        do { context.roomVolumes.replace(try await context.database.roomVolumes()) } catch {
            logger.error("could not read the rooms' volumes set by buttons: \(error); the config's target_volume applies")
        }
    }

    /// The button of `name`, if the config has one.
    public nonisolated func button(named name: String) -> ButtonSettings? {
        live.value.configuration.buttons.first { $0.name == name }
    }

    /// The button whose MQTT topic is `topic`, if any.
    public nonisolated func button(onTopic topic: String) -> ButtonSettings? {
        live.value.configuration.buttons.first { $0.mqttTopic == topic }
    }

    /// Carries out `event` of button `name` and logs the press.
    /// - Parameters:
    ///   - via: `mqtt` or `http`, for the log.
    ///   - trusted: false for an HTTP client that is not this machine: it may not have a payment
    ///     said again where `api.require_signature` covers payments.
    public func press(_ name: String, event: String, via: String, trusted: Bool) async -> ButtonPress {
        await start()
        guard let button = button(named: name) else {
            return await log(ButtonPress(at: now(), button: name, event: event, action: nil, result: Result.ignored.rawValue,
                                         detail: "no button \(name) in the config (buttons:)"), via: via)
        }
        guard let action = button.actions[event] else {
            let known = button.actions.keys.sorted().joined(separator: ", ")
            return await log(ButtonPress(at: now(), button: name, event: event, action: nil, result: Result.ignored.rawValue,
                                         detail: "button \(name) has no action for '\(event)'; its events are \(known)"), via: via)
        }
        let key = "\(name)/\(action.rawValue)"
        let instant = ContinuousClock.now
        // Within a second of the last press (run or not): a contact that bounces, or a hold that
        // keeps sending its event, runs the action once until it has been still for a second.
        if let last = lastRun[key], instant - last.at < .seconds(1) {
            lastRun[key] = (instant, last.ignored + 1)
            HeraldMetrics.buttonPressed(action: action.rawValue, result: Result.ignored.rawValue)
            let press = ButtonPress(at: now(), button: name, event: event, action: action.rawValue, result: Result.ignored.rawValue,
                                    detail: "within a second of the last \(action.rawValue) of this button")
            // A flood is logged once, not once per press (and counted above, each press).
            if last.ignored == 0 { return await log(press, via: via, counted: true) }
            return press
        }
        if let last = lastRun[key], last.ignored > 1 {
            logger.notice("button \(name): \(last.ignored) presses of \(action.rawValue) came within a second of each other and were ignored")
        }
        lastRun[key] = (instant, 0)
        let (result, detail) = await carryOut(action, of: button, trusted: trusted)
        return await log(ButtonPress(at: now(), button: name, event: event, action: action.rawValue, result: result.rawValue,
                                     detail: detail), via: via)
    }

    private func log(_ press: ButtonPress, via: String, counted: Bool = false) async -> ButtonPress {
        let metadata: Logger.Metadata = ["button": "\(press.button)", "event": "\(press.event)", "action": "\(press.action ?? "-")",
                                         "via": "\(via)", "result": "\(press.result)"]
        if press.result == Result.failed.rawValue || press.result == Result.refused.rawValue {
            logger.warning("button press: \(press.detail)", metadata: metadata)
        } else {
            logger.info("button press: \(press.detail)", metadata: metadata)
        }
        if !counted { HeraldMetrics.buttonPressed(action: press.action ?? "none", result: press.result) }
        do { try await context.database.recordPress(press) } catch {
            logger.error("could not log a press of button \(press.button): \(error)")
        }
        return press
    }
}
