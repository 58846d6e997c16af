import Foundation
import HeraldCore
import Yams

extension ConfigValues {
    /// The fields a button may have (docs/buttons.md).
    static let buttonFields: Set<String> = ["mqtt", "field", "actions", "room", "label", "quiet_for"]

    /// `buttons:`, each checked as a whole: one with a bad field is left out, and every bad field
    /// is named (file, line, key).
    mutating func readButtons(rooms: RoomSettings, mqtt: MQTTSettings?) -> [ButtonSettings] {
        var topics: [String: String] = [:]
        return (layout.records["buttons"] ?? []).compactMap { record in
            guard let button = configButton(record.name, record.fields, rooms: rooms, mqtt: mqtt) else { return nil }
            if let topic = button.mqttTopic {
                if let other = topics[topic] {
                    report("buttons.\(button.name).mqtt", "'\(topic)' is already button \(other)'s topic; give each button its own")
                    return nil
                }
                topics[topic] = button.name
            }
            return button
        }
    }

    private mutating func configButton(_ name: String, _ mapping: Node.Mapping, rooms: RoomSettings, mqtt: MQTTSettings?) -> ButtonSettings? {
        let prefix = "buttons.\(name)"
        var fields: [String: Node] = [:]
        for (key, value) in mapping {
            guard let field = key.scalar?.string else { continue }
            if Self.buttonFields.contains(field) { fields[field] = value } else {
                report("\(prefix).\(field)", "unknown field; a button has \(Self.buttonFields.sorted().joined(separator: ", "))")
            }
        }
        let before = problems.count
        func text(_ field: String) -> String? {
            guard let value = fields[field]?.scalar?.string.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
            return value
        }
        guard MQTTSettings.isTopicName(name) else {
            report(prefix, "'\(name)' is not a button name; use letters, digits and - _ . (it is part of POST /v1/buttons/{name}/{event})")
            return nil
        }
        var actions: [String: ButtonAction] = [:]
        if let mapping = fields["actions"]?.mapping, !mapping.isEmpty {
            for (key, value) in mapping {
                guard let event = key.scalar?.string, !event.isEmpty, event.count <= 64 else {
                    report("\(prefix).actions", "an event name is empty or longer than 64 characters")
                    continue
                }
                let wanted = value.scalar?.string ?? ""
                if let action = ButtonAction(rawValue: wanted) { actions[event] = action } else {
                    report("\(prefix).actions.\(event)", "'\(wanted)' is not an action; use one of \(ButtonAction.allCases.map(\.rawValue).joined(separator: ", "))")
                }
            }
        } else {
            report("\(prefix).actions", "needs a mapping of events to actions, like {single: ack, double: repeat, hold: help}")
        }
        var button = ButtonSettings(name: name, actions: actions)
        if let topic = text("mqtt") {
            if topic.contains("#") || topic.contains("+") || topic.hasPrefix("$") || topic.utf8.count > 256 {
                report("\(prefix).mqtt", "'\(topic)' is not one topic; name the button's own topic, like zigbee2mqtt/pill (no + or # wildcards)")
            } else if topic.hasPrefix("herald/") {
                report("\(prefix).mqtt", "'\(topic)' is under herald/, which carries announcements and events; use the bridge's topic, like zigbee2mqtt/pill")
            } else if mqtt == nil {
                report("\(prefix).mqtt", "a button on MQTT needs mqtt.broker set (the broker zigbee2mqtt publishes to)")
            } else {
                button.mqttTopic = topic
            }
        }
        if let field = text("field") { button.field = field }
        if let room = text("room") {
            if rooms.room(named: room) != nil { button.room = room } else {
                report("\(prefix).room", "'\(room)' is not a room here; use one of \(rooms.rooms.map(\.name).joined(separator: ", "))")
            }
        }
        button.label = text("label")
        if let value = text("quiet_for") {
            if let parsed = DurationText.parse(value), (Duration.seconds(60) ... .seconds(12 * 3600)).contains(parsed) {
                button.quietFor = parsed
            } else {
                report("\(prefix).quiet_for", "'\(value)' is not a duration from 1m to 12h; write it like 30m")
            }
        }
        return problems.count == before ? button : nil
    }
}
