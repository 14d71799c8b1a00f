import Canopy
import CanopyWire
import Foundation
import Testing

/// Bad input never crashes and never reaches the engine: it is thrown, passed to the
/// completion, or carried by the built reference/query.
@Suite struct InvalidInputTests {
    let database = Database(url: "loopback://nobody?ns=test", transportFactory: LoopbackNetwork())

    private func expectInvalid(
        _ message: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
    ) async {
        do {
            try await body()
            Issue.record("expected an invalid-argument error", sourceLocation: sourceLocation)
        } catch let error as DatabaseError {
            #expect(error.code == .invalidArgument, sourceLocation: sourceLocation)
            #expect(error.message.contains(message), "\(error.message)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func invalidKeysInPathsAndValuesNameTheKey() async {
        let root = database.reference()
        await expectInvalid("a.b") { try await root.child("users/a.b").setValue(1) }
        await expectInvalid("we$ird") { try await root.child("users").setValue(["ok": ["we$ird": 1]]) }
        await expectInvalid("x#y") { try await root.updateChildValues(["good/x#y": 1]) }
        await expectInvalid(".info") { try await root.child(".info/connected").setValue(true) }
        await expectInvalid("/a") { try await root.updateChildValues(["a": 1, "a/b": 2]) }
        #expect(root.child("a[0]").validationError?.message.contains("a[0]") == true)
    }

    @Test func invalidValuesAndPriorities() async {
        let ref = database.reference(withPath: "item")
        await expectInvalid("NaN") { try await ref.setValue(Double.nan) }
        await expectInvalid("Date") { try await ref.setValue(["when": Date()]) }
        await expectInvalid("priority") { try await ref.setValue(1, andPriority: true) }
        await expectInvalid("priority") { try await ref.setPriority(["a": 1]) }
        await expectInvalid("dictionary keys must be strings") {
            try await ref.setValue([1: "x"] as [AnyHashable: Any])
        }
    }

    @Test func completionBlockReceivesTheError() async throws {
        let log = EventLog<String>()
        database.reference(withPath: "a/b$").setValue(1) { error, ref in
            log.append("\((error as? DatabaseError)?.code == .invalidArgument) \(ref.key ?? "")")
        }
        database.reference(withPath: "list").updateChildValues(["x/.y": 1]) { error, _ in
            log.append("\((error as? DatabaseError)?.code == .invalidArgument)")
        }
        #expect(try await log.next() == "true b$")
        #expect(try await log.next() == "true")
    }

    @Test func queryBuilderErrorsAreCarriedAndReported() async throws {
        let ref = database.reference(withPath: "dinosaurs")
        let cases: [(DatabaseQuery, String)] = [
            (ref.queryOrderedByKey().queryOrderedByValue(), "multiple orderBy"),
            (ref.queryStarting(atValue: 1).queryStarting(atValue: 2), "start was already set"),
            (ref.queryEqual(toValue: 1).queryEnding(atValue: 2), "end was already set"),
            (ref.queryLimited(toFirst: 0), "Limit"),
            (ref.queryLimited(toFirst: 1).queryLimited(toLast: 1), "Limit was already set"),
            (ref.queryOrderedByKey().queryStarting(atValue: 1), "must be a string"),
            (ref.queryOrderedByKey().queryStarting(atValue: "a", childKey: "b"), "one argument"),
            (ref.queryOrderedByPriority().queryEnding(atValue: true), "valid priority"),
            (ref.queryStarting(atValue: ["a": 1]), "null, a string, a number or a boolean"),
            (ref.queryOrdered(byChild: "$key"), "orderByChild"),
            (ref.queryStarting(atValue: 1, childKey: "bad/key"), "bad/key"),
        ]
        for (query, message) in cases {
            let error = try #require(query.validationError, "\(message)")
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains(message), "\(error.message)")
            // The location stays usable.
            #expect(query.ref.validationError == nil)
        }
        #expect(database.reference(withPath: "a#b").queryLimited(toFirst: 1).ref.validationError != nil)
        // The observer's cancel block gets the error; nothing is attached.
        let log = EventLog<String>()
        ref.queryLimited(toLast: 0).observe(
            .value, with: { _ in log.append("event") },
            withCancel: { error in
                log.append("cancel \((error as? DatabaseError)?.code == .invalidArgument)")
            })
        #expect(try await log.next() == "cancel true")
        await #expect(throws: DatabaseError.self) { try await ref.queryLimited(toLast: 0).getData() }
        await #expect(throws: DatabaseError.self) {
            for try await _ in ref.queryOrderedByKey().queryOrderedByKey().values {}
        }
    }

    @Test func transactionStoringAnInvalidValueFailsWithoutCommitting() async throws {
        let ref = database.reference(withPath: "counter")
        await expectInvalid("NaN") {
            _ = try await ref.runTransactionBlock { data in
                data.value = Double.nan
                return .success(withValue: data)
            }
        }
        await expectInvalid("bad.key") {
            _ = try await ref.runTransactionBlock { data in
                data.childData(byAppendingPath: "bad.key").value = 1
                return .success(withValue: data)
            }
        }
    }

    @Test func invalidURLsDoNotCrash() async {
        let broken = Database(url: "not a url", transportFactory: LoopbackNetwork())
        #expect(broken.reference().validationError?.code == .invalidArgument)
        await expectInvalid("not a url") { try await broken.reference().child("a").setValue(1) }
        let other = database.reference(fromURL: "loopback://elsewhere/a?ns=test")
        #expect(other.validationError?.code == .invalidArgument)
        let mine = database.reference(fromURL: "loopback://nobody/users/ann?ns=test")
        #expect(mine.validationError == nil)
        #expect(mine.key == "ann")
    }
}
