// The shared scenarios and test utilities (`EventLog`, `withDeadline`, `send`) for every file
// of this target.
@_exported import CanopyScenarios
