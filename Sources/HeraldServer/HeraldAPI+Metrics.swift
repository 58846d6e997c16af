import HeraldApp
import HeraldCore
import HTTPTypes
import Hummingbird
import NIOCore

extension HeraldAPI {
    /// `GET /metrics`: every counter of `HeraldMetrics`, with the queue's gauges read now (a
    /// gauge set at scrape time cannot go stale between scrapes).
    func metricsResponse() async -> Response {
        let snapshot = await daemon.snapshot()
        var depth: [Priority: Int] = [:]
        for (name, count) in snapshot.queueDepth { if let priority = Priority(rawValue: name) { depth[priority] = count } }
        HeraldMetrics.queue(depth: depth, deferred: snapshot.deferred)
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: metrics.render())))
    }
}
