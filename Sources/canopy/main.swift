import CanopyStorage
import CanopyWebSocket

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "serve":
    print("canopy serve: not implemented yet (SQLite \(SQLiteLibrary.version), libwebsockets \(WebSocketLibrary.version))")
case "--version", "version":
    print("canopy 0.1.0")
default:
    print("usage: canopy serve")
}
