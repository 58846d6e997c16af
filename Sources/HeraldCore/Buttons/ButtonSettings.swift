import Foundation

/// What pressing a button does (`buttons.<name>.actions` in the config; docs/buttons.md).
public enum ButtonAction: String, Sendable, CaseIterable, Codable {
    /// Acknowledges the reminder waiting for an answer (in the button's room), and says "Thank you."
    case ack
    /// Says the last announcement again.
    case `repeat`
    /// Says the last payment again.
    case repeatPayment = "repeat_payment"
    /// Says today's payments: how many, and their total per currency.
    case total
    /// A call for help: said in every room until acknowledged, sent at once to the caregiver's
    /// webhook and to the fleet console.
    case help
    /// Holds everything but critical announcements for the button's `quiet_for`, said after.
    case quiet
    /// The room's volume one step up or down, kept across restarts.
    case volumeUp = "volume_up"
    case volumeDown = "volume_down"
}

/// One button of `buttons:`: where its presses come from and what each event does.
public struct ButtonSettings: Sendable, Equatable {
    /// Its name in the config: `POST /v1/buttons/{name}/{event}` and the log name it.
    public var name: String
    /// The MQTT topic its events come on (zigbee2mqtt: `zigbee2mqtt/<friendly name>`); nil: only
    /// through the HTTP API.
    public var mqttTopic: String?
    /// The JSON field of an MQTT message that holds the event (zigbee2mqtt's `action`).
    public var field = "action"
    /// What each event does (`single`, `double`, `hold`, ...).
    public var actions: [String: ButtonAction]
    /// The room it stands in: the reminder it acknowledges, the room it repeats in and whose
    /// volume it changes; nil: the house (every room, the default sink).
    public var room: String?
    /// Said in the help call: where the person is ("the bedroom"); nil: the room, else the button's name.
    public var label: String?
    /// How long `quiet` holds announcements.
    public var quietFor: Duration = .seconds(30 * 60)

    public init(name: String, actions: [String: ButtonAction]) {
        self.name = name
        self.actions = actions
    }

    /// The words the help call says for where it came from.
    public var place: String { label ?? room ?? name }
}
