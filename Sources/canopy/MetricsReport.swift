import CanopyServer

/// `/metrics` of `canopy serve` in the Prometheus text format (version 0.0.4): connections,
/// listens, writes (total and per second), bytes in and out, HTTP requests and errors, and
/// the size of each namespace's store.
struct MetricsReport: Sendable {
    /// The server whose namespaces are reported.
    let server: CanopyServer
    /// The stores (for their sizes).
    let stores: NamespaceStores
    /// The counters.
    let metrics: ServerMetrics

    /// The report now.
    func render() async -> String {
        let counters = metrics.counters
        let webSockets = metrics.webSockets.reading
        var listens = 0
        for name in stores.names {
            if let namespace = try? await server.namespace(named: name) {
                listens += await namespace.listenCount
            }
        }
        var text = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for sample in samples { text += "\(name)\(sample.labels) \(sample.value)\n" }
        }
        metric(
            "canopy_connections", "gauge", "Open connections: websockets and Server-Sent Events streams.",
            [
                ("{kind=\"websocket\"}", "\(webSockets.openConnections)"),
                ("{kind=\"event_stream\"}", "\(counters.openEventStreams)"),
            ])
        metric(
            "canopy_connections_total", "counter", "Websocket connections and event streams opened.",
            [("", "\(webSockets.connectionsOpened + counters.eventStreamsOpened)")])
        metric(
            "canopy_listens", "gauge", "Active listens (websocket listens and event streams).",
            [("", "\(listens)")])
        metric(
            "canopy_writes_total", "counter", "Writes committed to a store (including onDisconnect operations).",
            [("", "\(counters.writes)")])
        metric(
            "canopy_writes_per_second", "gauge",
            "Writes per second over the last \(ServerMetrics.rateWindow) seconds.",
            [("", Self.decimal(metrics.writesPerSecond))])
        metric(
            "canopy_received_bytes_total", "counter", "Payload bytes received (websocket frames, HTTP bodies).",
            [("", "\(webSockets.bytesReceived + counters.httpBytesReceived)")])
        metric(
            "canopy_sent_bytes_total", "counter", "Payload bytes sent (websocket frames, HTTP bodies, events).",
            [("", "\(webSockets.bytesSent + counters.httpBytesSent)")])
        metric(
            "canopy_http_requests_total", "counter", "HTTP requests answered (REST, health, metrics).",
            [("", "\(counters.httpRequests)")])
        metric(
            "canopy_http_errors_total", "counter", "HTTP requests answered with a 4xx or 5xx status.",
            [("", "\(counters.httpErrors)")])
        let sizes = stores.stats()
        metric(
            "canopy_namespaces", "gauge", "Namespaces opened since the server started.", [("", "\(sizes.count)")])
        metric(
            "canopy_store_bytes", "gauge", "Logical size of each namespace's stored tree in bytes.",
            sizes.map { ("{namespace=\"\($0.name)\"}", "\($0.stats.byteSize)") })
        metric(
            "canopy_store_leaves", "gauge", "Leaves stored in each namespace.",
            sizes.map { ("{namespace=\"\($0.name)\"}", "\($0.stats.leafCount)") })
        metric(
            "canopy_uptime_seconds", "gauge", "Seconds since the server started.",
            [("", Self.decimal(metrics.uptimeSeconds))])
        return text
    }

    /// `value` with up to three decimals.
    private static func decimal(_ value: Double) -> String {
        let thousandths = Int((value * 1000).rounded())
        let fraction = String(thousandths % 1000)
        return "\(thousandths / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
