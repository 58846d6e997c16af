import CPulse
import Foundation
import HeraldCore

/// Sink and sink-input change events, broadcast to every `events()` consumer.
extension PulseConnection {
    /// A stream of stream and sink changes. Subscribes on the server at the first call.
    public func events() async throws -> AsyncStream<SoundEvent> {
        let (stream, continuation) = AsyncStream<SoundEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        // A context that already died never announces its end again: end this stream now.
        guard isConnected else {
            continuation.finish()
            return stream
        }
        if try await needsSubscription() {
            let unretained = Unmanaged.passUnretained(self).toOpaque()
            withLock {
                // `self` outlives the context: deinit clears this callback first.
                pa_context_set_subscribe_callback(context, { _, type, index, userdata in
                    Unmanaged<PulseConnection>.fromOpaque(userdata!).takeUnretainedValue()
                        .broadcast(type: type, index: index)
                }, unretained)
            }
            let mask = pa_subscription_mask_t(PA_SUBSCRIPTION_MASK_SINK.rawValue | PA_SUBSCRIPTION_MASK_SINK_INPUT.rawValue
                                              | PA_SUBSCRIPTION_MASK_SERVER.rawValue)
            do {
                try await performSuccess("subscribe to events") { context, userdata in
                    pa_context_subscribe(context, mask, successCallback, userdata)
                }
            } catch {
                // Not subscribed: the next caller tries again.
                withLock { subscribedToEvents = false }
                throw error
            }
        }
        return stream
    }

    private func needsSubscription() async throws -> Bool {
        withLock {
            if subscribedToEvents { return false }
            subscribedToEvents = true
            return true
        }
    }

    /// Runs on the mainloop thread.
    private func broadcast(type: pa_subscription_event_type_t, index: UInt32) {
        let facility = herald_event_facility(type)
        let kind = herald_event_kind(type)
        let event: SoundEvent
        if facility == PA_SUBSCRIPTION_EVENT_SINK_INPUT {
            if kind == PA_SUBSCRIPTION_EVENT_NEW {
                event = .streamAppeared(index: index)
            } else if kind == PA_SUBSCRIPTION_EVENT_REMOVE {
                event = .streamVanished(index: index)
            } else {
                return
            }
        } else if facility == PA_SUBSCRIPTION_EVENT_SINK {
            if kind == PA_SUBSCRIPTION_EVENT_NEW {
                event = .sinkAdded(index: index)
            } else if kind == PA_SUBSCRIPTION_EVENT_REMOVE {
                event = .sinkRemoved(index: index)
            } else {
                event = .sinkChanged(index: index)
            }
        } else if facility == PA_SUBSCRIPTION_EVENT_SERVER {
            event = .serverChanged
        } else {
            return
        }
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(event) }
    }
}
