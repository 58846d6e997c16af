import Foundation
import HeraldApp
import HeraldCore
import HeraldMQTTClient

extension MQTTLink {
    /// A message on a button's topic (zigbee2mqtt: `{"action": "single", "battery": 97, ...}`):
    /// the event is the button's `field`. A message without it (zigbee2mqtt's battery and link
    /// reports, the empty `action` it sends after a press) is no press; a retained one is an old
    /// state handed over again at subscribe, never a press.
    func takePress(_ message: MosquittoClient.Message) async {
        guard let buttons else { return }
        let topic = message.topic
        guard let button = buttons.button(onTopic: topic) else {
            logger.notice("MQTT: a message on \(topic), whose button a reload removed: ignored (restart to unsubscribe)")
            return
        }
        guard !message.retained else {
            logger.info("MQTT: a retained message on button \(button.name)'s topic \(topic) is an old state, not a press: ignored")
            return
        }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(message.payload))) as? [String: Any] else {
            let preview = String(decoding: message.payload.prefix(80), as: UTF8.self)
            logger.warning("MQTT: button \(button.name): the message on \(topic) is not a JSON object (\(preview)); a press is like {\"\(button.field)\": \"single\"}")
            HeraldMetrics.buttonPressed(action: "none", result: "ignored")
            return
        }
        guard let value = object[button.field] else { return }
        guard let event = value as? String else {
            logger.warning("MQTT: button \(button.name): field \(button.field) on \(topic) is not a string; a press is like {\"\(button.field)\": \"single\"}")
            return
        }
        guard !event.isEmpty else { return }
        _ = await buttons.press(button.name, event: event, via: "mqtt", trusted: true)
    }
}
