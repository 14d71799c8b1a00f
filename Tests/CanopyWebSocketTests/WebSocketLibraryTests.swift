import CanopyWebSocket
import Testing

@Test func linksLibWebSockets() {
    #expect(WebSocketLibrary.version.first?.isNumber == true)
}
