import CWebSockets

/// Reads the request line, query arguments, headers and peer address of a server-side
/// connection from libwebsockets' header table (service thread only, while the headers are
/// still attached: in the HTTP and ESTABLISHED callbacks).
enum LWSRequestHeaders {
    /// Method tokens and their names, in the order they are checked.
    private static let methods: [(lws_token_indexes, String)] = [
        (WSI_TOKEN_GET_URI, "GET"), (WSI_TOKEN_POST_URI, "POST"), (WSI_TOKEN_PUT_URI, "PUT"),
        (WSI_TOKEN_PATCH_URI, "PATCH"), (WSI_TOKEN_DELETE_URI, "DELETE"), (WSI_TOKEN_OPTIONS_URI, "OPTIONS"),
        (WSI_TOKEN_HEAD_URI, "HEAD"),
    ]

    /// Tokens that are not request headers (request line parts, client-side bookkeeping).
    private static let excluded: Set<UInt32> = Set(
        methods.map { $0.0.rawValue } + [
            WSI_TOKEN_HTTP_URI_ARGS.rawValue, WSI_TOKEN_HTTP.rawValue, WSI_TOKEN_HTTP1_0.rawValue,
            WSI_TOKEN_CONNECT.rawValue,
        ])

    /// The request method and the path it carries, such as `("GET", "/a/b.json")`.
    static func method(_ wsi: OpaquePointer) -> (method: String, path: String)? {
        for (token, name) in methods where lws_hdr_total_length(wsi, token) > 0 {
            return (name, copy(wsi, token) ?? "/")
        }
        return nil
    }

    /// The query arguments, each already percent-decoded by libwebsockets, in order.
    static func queryItems(_ wsi: OpaquePointer) -> [HTTPQueryItem] {
        var items: [HTTPQueryItem] = []
        let total = Int(lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_URI_ARGS))
        guard total > 0 else { return items }
        var buffer = [CChar](repeating: 0, count: total + 1)
        var index: Int32 = 0
        while true {
            let length = buffer.withUnsafeMutableBufferPointer { pointer in
                lws_hdr_copy_fragment(wsi, pointer.baseAddress, Int32(pointer.count), WSI_TOKEN_HTTP_URI_ARGS, index)
            }
            if length < 0 { break }
            let fragment = buffer.withUnsafeBufferPointer { pointer in
                String(decoding: UnsafeRawBufferPointer(pointer).prefix(Int(length)), as: UTF8.self)
            }
            if let equals = fragment.firstIndex(of: "=") {
                items.append(
                    HTTPQueryItem(
                        name: String(fragment[..<equals]), value: String(fragment[fragment.index(after: equals)...])))
            } else if !fragment.isEmpty {
                items.append(HTTPQueryItem(name: fragment, value: ""))
            }
            index += 1
        }
        return items
    }

    /// The request headers libwebsockets parsed, plus the `custom` names asked for (lower-case,
    /// without the colon) when present.
    static func headers(_ wsi: OpaquePointer, custom: [String]) -> [HTTPHeader] {
        var headers: [HTTPHeader] = []
        var token: UInt32 = 0
        while token < WSI_TOKEN_COUNT.rawValue, token < _WSI_TOKEN_CLIENT_SENT_PROTOCOLS.rawValue {
            defer { token += 1 }
            let index = lws_token_indexes(rawValue: token)
            guard !excluded.contains(token), lws_hdr_total_length(wsi, index) > 0,
                let namePointer = lws_token_to_string(index)
            else { continue }
            let name = String(cString: namePointer)
            guard name.hasSuffix(":"), !name.hasPrefix(":"), let value = copy(wsi, index) else { continue }
            headers.append(HTTPHeader(String(name.dropLast()), value))
        }
        for name in custom {
            let key = Array((name.lowercased() + ":").utf8CString)
            let length = key.withUnsafeBufferPointer { lws_hdr_custom_length(wsi, $0.baseAddress, Int32($0.count - 1)) }
            guard length >= 0 else { continue }
            var buffer = [CChar](repeating: 0, count: Int(length) + 1)
            let copied = key.withUnsafeBufferPointer { keyPointer in
                buffer.withUnsafeMutableBufferPointer { pointer in
                    lws_hdr_custom_copy(
                        wsi, pointer.baseAddress, Int32(pointer.count), keyPointer.baseAddress,
                        Int32(keyPointer.count - 1))
                }
            }
            guard copied >= 0 else { continue }
            headers.append(HTTPHeader(name, string(buffer, length: Int(copied))))
        }
        return headers
    }

    /// The peer's numeric address (IPv4-mapped IPv6 addresses in their IPv4 form).
    static func remoteAddress(_ wsi: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        let result = buffer.withUnsafeMutableBufferPointer { lws_get_peer_simple(wsi, $0.baseAddress, $0.count) }
        guard result != nil else { return "" }
        let address = string(buffer, length: buffer.firstIndex(of: 0) ?? buffer.count)
        let mappedPrefix = "::ffff:"
        if address.hasPrefix(mappedPrefix), address.contains(".") {
            return String(address.dropFirst(mappedPrefix.count))
        }
        return address
    }

    /// All fragments of header `token` joined as libwebsockets joins them.
    static func copy(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let total = Int(lws_hdr_total_length(wsi, token))
        guard total >= 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: total + 1)
        let length = buffer.withUnsafeMutableBufferPointer { lws_hdr_copy(wsi, $0.baseAddress, Int32($0.count), token) }
        guard length >= 0 else { return nil }
        return string(buffer, length: Int(length))
    }

    private static func string(_ buffer: [CChar], length: Int) -> String {
        buffer.withUnsafeBufferPointer { pointer in
            String(decoding: UnsafeRawBufferPointer(pointer).prefix(length), as: UTF8.self)
        }
    }
}
