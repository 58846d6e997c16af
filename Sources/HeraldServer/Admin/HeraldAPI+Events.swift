import Foundation
import HeraldApp
import HeraldCore
import HeraldIntake
import HTTPTypes
import Hummingbird
import NIOCore

extension HeraldAPI {
    /// `GET /v1/events`: server-sent events, one `status` event (the `/v1/status` JSON) at once and
    /// again whenever the sink, its streams, the queue or the log change. The page listens; it
    /// never polls. Ends when the daemon stops, so a graceful stop is not held up by a browser.
    func eventStream() async -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody { [daemon] writer in
            // Everything the stream listens to starts with its body and ends with it: a client
            // gone before the head was written leaves nothing running.
            let (merged, input) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            let changes = daemon.changes.subscribe()
            try await withThrowingTaskGroup(of: Void.self) { group in
                defer { group.cancelAll() }
                group.addTask {
                    for await _ in changes { input.yield() }
                    input.finish()
                }
                group.addTask {
                    // The daemon's own connection: mute, volume and streams as pactl changes them.
                    var connected = false
                    while !Task.isCancelled {
                        if let sound = await daemon.soundSystem, let events = try? await sound.events() {
                            if !connected { input.yield() }
                            connected = true
                            for await _ in events { input.yield() }
                        }
                        if connected { input.yield() }
                        connected = false
                        // No server now, or it went away: look again in a second (here, not in the page).
                        try? await Task.sleep(for: .seconds(1))
                    }
                }
                group.addTask {
                    // A comment line now and then keeps proxies and idle timers from closing a quiet stream.
                    while (try? await Task.sleep(for: .seconds(15))) != nil { input.yield() }
                }
                try await writer.write(await statusEvent())
                for await _ in merged {
                    // A burst (a ramp moves a volume 20 times) becomes one event.
                    try? await Task.sleep(for: .milliseconds(40))
                    try await writer.write(await statusEvent())
                }
            }
            try await writer.finish(nil)
        })
    }

    private func statusEvent() async -> ByteBuffer {
        guard let status = try? await status(), let data = try? JSONEncoder.api.encode(status) else {
            return ByteBuffer(string: ": status unavailable\n\n")
        }
        return ByteBuffer(string: "event: status\ndata: \(String(decoding: data, as: UTF8.self))\n\n")
    }
}
