import CanopyTree
import Foundation

/// The sync-point conformance spec (client-design.md §14), loaded once from
/// `../shared/conformance/syncPointSpec.json` next to the package, or from
/// `/work/shared/conformance/`.
enum SyncPointSpec {
    /// One named case: its steps as JSON.
    struct Case: Sendable {
        let name: String
        let steps: [JSONValue]
    }

    /// The loaded cases, or why they could not be loaded.
    static let loaded: Result<[Case], SpecError> = load()

    /// Where the spec file was looked for.
    static var candidatePaths: [String] {
        // #filePath = <root>/Tests/CanopySyncTests/SyncPointSpec.swift
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return [
            packageRoot.deletingLastPathComponent().appendingPathComponent("shared/conformance/syncPointSpec.json")
                .path,
            "/work/shared/conformance/syncPointSpec.json",
        ]
    }

    /// The case names, empty when the file is absent (the tests are then skipped).
    static var caseNames: [String] {
        switch loaded {
        case .success(let cases): return cases.map(\.name)
        case .failure(.missing): return []
        case .failure: return ["<spec file unreadable>"]
        }
    }

    /// Whether the spec file was found.
    static var isPresent: Bool {
        if case .failure(.missing) = loaded { return false }
        return true
    }

    /// The case with this name.
    static func named(_ name: String) throws(SpecError) -> Case {
        let cases = try loaded.get()
        guard let found = cases.first(where: { $0.name == name }) else { throw .malformed("no case named \(name)") }
        return found
    }

    private static func load() -> Result<[Case], SpecError> {
        guard let path = candidatePaths.first(where: { FileManager.default.fileExists(atPath: $0) }),
            let data = FileManager.default.contents(atPath: path)
        else { return .failure(.missing) }
        let json: JSONValue
        do {
            json = try JSONParser.parse(data)
        } catch {
            return .failure(.malformed("spec is not JSON: \(error)"))
        }
        guard case .array(let items) = json else { return .failure(.malformed("spec is not an array")) }
        var cases: [Case] = []
        for item in items {
            guard let name = item["name"]?.stringValue, case .array(let steps)? = item["steps"] else {
                return .failure(.malformed("a case lacks a name or steps"))
            }
            cases.append(Case(name: name, steps: steps))
        }
        return .success(cases)
    }
}

/// Why a spec case could not be run or failed.
enum SpecError: Error, CustomStringConvertible {
    /// The spec file is not where it was looked for.
    case missing
    /// The spec (or a step) does not follow the schema.
    case malformed(String)
    /// The engine's behaviour differs from the expectation.
    case mismatch(String)

    var description: String {
        switch self {
        case .missing: return "syncPointSpec.json not found"
        case .malformed(let message): return "malformed spec: \(message)"
        case .mismatch(let message): return message
        }
    }
}
