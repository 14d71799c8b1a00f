import CanopyTestSupport
import CanopyWebSocket

extension SelfSignedCertificate {
    /// The listener settings that serve this certificate.
    var serverTLS: WebSocketServerTLS {
        WebSocketServerTLS(certificateFile: certificateFile, privateKeyFile: privateKeyFile)
    }
}
