/// What a command accepts on its command line: options that take a value, flags, and a range
/// of positional arguments. Parsing checks a command line against it and reports every
/// mistake as a usage error naming the offending word.
///
/// Options are written `--name value` or `--name=value`; `--` ends the options; a lone `-`
/// is a positional argument (conventionally standard input).
struct CommandLineSyntax: Sendable {
    /// The usage text, such as `usage: canopy get URL [--pretty]`.
    let usage: String
    /// Options that take a value, with their leading dashes (`--port`).
    let valueOptions: Set<String>
    /// Options that take no value (`--pretty`).
    let flags: Set<String>
    /// The fewest positional arguments accepted.
    let minimumPositionals: Int
    /// The most positional arguments accepted.
    let maximumPositionals: Int

    /// Parses `words` (the arguments after the command name).
    func parse(_ words: [String]) throws(CommandError) -> CommandLineArguments {
        var parsed = CommandLineArguments()
        var index = 0
        var optionsEnded = false
        while index < words.count {
            let word = words[index]
            index += 1
            if optionsEnded || word == "-" || !word.hasPrefix("-") {
                parsed.positionals.append(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            let name: String
            var inlineValue: String?
            if let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                inlineValue = String(word[word.index(after: equals)...])
            } else {
                name = word
            }
            if flags.contains(name) {
                guard inlineValue == nil else { throw .usage("option \(name) takes no value", usage) }
                parsed.flags.insert(name)
            } else if valueOptions.contains(name) {
                if let inlineValue {
                    parsed.values[name] = inlineValue
                } else {
                    guard index < words.count else { throw .usage("option \(name) needs a value", usage) }
                    parsed.values[name] = words[index]
                    index += 1
                }
            } else {
                throw .usage("unknown option \(name)", usage)
            }
        }
        if parsed.positionals.count < minimumPositionals {
            throw .usage("missing argument", usage)
        }
        if parsed.positionals.count > maximumPositionals {
            throw .usage("unexpected argument \(parsed.positionals[maximumPositionals])", usage)
        }
        return parsed
    }
}

/// A command line parsed by a ``CommandLineSyntax``.
struct CommandLineArguments: Sendable {
    /// The value of each option given (the last one wins when repeated).
    var values: [String: String] = [:]
    /// The flags given.
    var flags: Set<String> = []
    /// The positional arguments in order.
    var positionals: [String] = []

    /// The value of `option`, or nil when absent.
    func value(_ option: String) -> String? {
        values[option]
    }

    /// Whether `flag` was given.
    func has(_ flag: String) -> Bool {
        flags.contains(flag)
    }

    /// The positional argument at `index`, or nil.
    func positional(_ index: Int) -> String? {
        positionals.indices.contains(index) ? positionals[index] : nil
    }
}
