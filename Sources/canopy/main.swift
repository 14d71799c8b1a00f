import Foundation

exit(await CanopyCommand.run(Array(CommandLine.arguments.dropFirst())))
