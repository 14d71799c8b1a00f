import CWebSockets

/// Writes headers into a libwebsockets header buffer (service thread only): the extra headers
/// of a client's upgrade request and the headers of an HTTP response.
enum LWSHeaderWriter {
    /// Appends `headers` at `cursor`, which advances; `end` is the end of the buffer. Returns
    /// false when a header does not fit.
    static func append(
        _ headers: [HTTPHeader],
        _ wsi: OpaquePointer,
        cursor: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
        end: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        for header in headers {
            let name = Array((header.name + ":").utf8) + [0]
            let value = Array(header.value.utf8)
            let failed = name.withUnsafeBufferPointer { namePointer in
                value.withUnsafeBufferPointer { valuePointer in
                    lws_add_http_header_by_name(
                        wsi, namePointer.baseAddress, valuePointer.baseAddress, Int32(valuePointer.count), cursor, end)
                }
            }
            if failed != 0 { return false }
        }
        return true
    }
}
