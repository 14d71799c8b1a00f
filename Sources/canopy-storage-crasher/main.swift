// canopy-storage-crasher: opens a tree store, applies the writes it reads from stdin and
// acknowledges each one on stdout, so that a test can kill it at any moment and check that
// every acknowledged write survived.
//
//     canopy-storage-crasher <sqlite|sqlite-normal|json> <path>
//
// stdin: one write per line, `{"p": "/a/b", "o": <node>}` (overwrite) or
// `{"p": "/a", "m": {"c/d": <node>, …}}` (merge), nodes in export form.
// stdout: `open` once the store is open, `ack <n>` after the n-th write returned (is durable),
// `done` after end of input and close. Errors go to stderr with exit status 1.

import CanopyStorage
import CanopyTree
import Foundation

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("error: " + message + "\n").utf8))
    exit(1)
}

func openStore(_ backend: String, _ path: String) throws -> any TreeStore {
    switch backend {
    case "sqlite": return try SQLiteTreeStore(path: path)
    case "sqlite-normal": return try SQLiteTreeStore(path: path, synchronous: .normal)
    // A small threshold, so that kills also land in the middle of compactions.
    case "json": return try JSONFileTreeStore(directory: path, compactionThreshold: 2048)
    default: fail("unknown backend \(backend)")
    }
}

func apply(_ line: String, to store: any TreeStore) throws {
    let json = try JSONParser.parse(line)
    guard let path = json["p"]?.stringValue else { fail("a write without a path: \(line)") }
    if let node = json["o"] {
        try store.overwrite(at: Path(path), with: Node(json: node))
    } else if case .object(let members)? = json["m"] {
        var children: [(Path, Node)] = []
        for member in members { children.append((Path(member.key), try Node(json: member.value))) }
        try store.merge(at: Path(path), children: children)
    } else {
        fail("a write that is neither an overwrite nor a merge: \(line)")
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else { fail("usage: canopy-storage-crasher <sqlite|sqlite-normal|json> <path>") }
do {
    let store = try openStore(arguments[1], arguments[2])
    say("open")
    var count = 0
    while let line = readLine() {
        try apply(line, to: store)
        count += 1
        say("ack \(count)")
    }
    store.close()
    say("done")
} catch {
    fail("\(error)")
}
