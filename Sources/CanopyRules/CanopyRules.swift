import CanopyTree

/// The security rules module marker; rules land with the rules issue.
public enum RulesInfo {}
