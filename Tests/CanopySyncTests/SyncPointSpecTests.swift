import CanopySync
import CanopyTree
import Testing

@Suite("Sync-point conformance spec")
struct SyncPointSpecTests {
    @Test("Spec file is present (otherwise the conformance cases are skipped)")
    func specFileIsPresent() {
        if !SyncPointSpec.isPresent {
            print("syncPointSpec.json not found at \(SyncPointSpec.candidatePaths); conformance cases skipped")
        }
        if case .failure(let error) = SyncPointSpec.loaded, case .malformed = error {
            Issue.record("\(error)")
        }
    }

    @Test(
        "Conformance case", .enabled(if: SyncPointSpec.isPresent),
        arguments: SyncPointSpec.caseNames, ["", "foo/bar/baz"])
    func conformanceCase(name: String, prefix: String) throws {
        let specCase = try SyncPointSpec.named(name)
        let runner = SpecCaseRunner(prefix: Path(prefix))
        try runner.run(specCase)
    }
}
