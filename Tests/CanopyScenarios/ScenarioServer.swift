import Canopy

/// A server the sample-app scenarios run against: an in-process server over loopback, or a
/// `canopy serve` process over websockets.
public protocol ScenarioServer: Sendable {
    /// A new, independent client of the scenario's namespace.
    func database() -> Database

    /// The data the server holds at `path`, as compact JSON in export form.
    func value(at path: String) async throws -> String
}
