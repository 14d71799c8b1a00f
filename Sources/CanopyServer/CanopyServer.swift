import CanopyTree

/// The server engine's module marker; the engine lands with the server issue.
public enum ServerInfo {}
