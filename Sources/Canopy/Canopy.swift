import CanopySync

/// The public client API's module marker; the API lands with the client issue.
public enum CanopyInfo {}
