import Foundation
import HeraldConfig
import HeraldCore
import Testing

/// `buttons:` in the config: read into typed values, their MQTT topics subscribed, and every
/// mistake named with its line and key.
@Suite struct ButtonConfigTests {
    @Test func aZigbeeAndAnHTTPButtonAreRead() async throws {
        let folder = try ConfigFolder()
        let configuration = try await folder.load(.utf8("""
            mqtt:
              broker: mqtt://127.0.0.1:1883
              hub: shop
            rooms:
              bedroom: {sink: bed}
            buttons:
              pill:
                mqtt: zigbee2mqtt/pill
                actions: {single: ack, double: repeat, hold: help}
                room: bedroom
                quiet_for: 45m
              counter:
                field: click
                actions: {single: total, double: repeat_payment, long: volume_up}
            """))
        let pill = try #require(configuration.buttons.first { $0.name == "pill" })
        #expect(pill.mqttTopic == "zigbee2mqtt/pill" && pill.field == "action" && pill.room == "bedroom" && pill.quietFor == .seconds(2700))
        #expect(pill.actions == ["single": .ack, "double": .repeat, "hold": .help])
        #expect(pill.place == "bedroom")
        let counter = try #require(configuration.buttons.first { $0.name == "counter" })
        #expect(counter.mqttTopic == nil && counter.field == "click" && counter.actions["long"] == .volumeUp)
        #expect(configuration.mqtt?.subscriptions == ["herald/shop/announce", "zigbee2mqtt/pill"])
    }

    @Test func eachMistakeIsNamedWithItsLineAndKey() async throws {
        let folder = try ConfigFolder()
        let problems = try await folder.problems(.utf8("""
            buttons:
              pill:
                mqtt: zigbee2mqtt/#
                actions: {single: ack, double: dance}
                colour: red
              door:
                mqtt: zigbee2mqtt/door
                actions: {single: ack}
                room: cellar
              bare:
                label: nothing
            """))
        func problem(_ key: String) -> ConfigProblem? { problems.first { $0.key == key } }
        #expect(problem("buttons.pill.mqtt")?.message.contains("wildcards") == true, "\(problems)")
        #expect(problem("buttons.pill.actions.double")?.message.contains("'dance' is not an action") == true, "\(problems)")
        #expect(problem("buttons.pill.colour")?.line == 5, "\(problems)")
        #expect(problem("buttons.door.mqtt")?.message.contains("needs mqtt.broker") == true, "\(problems)")
        #expect(problem("buttons.door.room")?.message.contains("'cellar' is not a room") == true, "\(problems)")
        #expect(problem("buttons.bare.actions")?.message.contains("needs a mapping") == true, "\(problems)")
    }
}
