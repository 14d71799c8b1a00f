import Foundation

// A closed pipe or socket must fail that one write, not end the process.
signal(SIGPIPE, SIG_IGN)
exit(await CanopyCommand.run(Array(CommandLine.arguments.dropFirst())))
