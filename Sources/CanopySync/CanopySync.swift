import CanopyTree

/// The client engine's module marker; the sync actor lands with the client issue.
public enum SyncEngineInfo {}
