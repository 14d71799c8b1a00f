import CanopyTree
import Foundation
import Testing

@testable import Canopy

/// The transaction data view, without a server.
@Suite struct MutableDataTests {
    private func data(_ json: String, at path: String = "posts/p1") throws -> MutableData {
        MutableData(node: try Node(jsonText: json), at: Path(path))
    }

    @Test func readsValuePriorityAndChildren() throws {
        let data = try data(#"{"title":"T","stars":{"a":true,"b":true},".priority":4}"#)
        #expect(data.key == "p1")
        #expect(data.priority as? Int == 4)
        #expect(data.hasChildren())
        #expect(data.childrenCount == 2)
        #expect(data.hasChild(atPath: "stars/a"))
        #expect(!data.hasChild(atPath: "stars/c"))
        #expect(!data.hasChild(atPath: "bad#path"))
        #expect(data.children.map(\.key) == ["stars", "title"])
        let value = try #require(data.value as? [String: Any])
        #expect(value["title"] as? String == "T")
        #expect(MutableData(node: .empty, at: .root).value is NSNull)
        #expect(MutableData(node: .empty, at: .root).key == nil)
    }

    @Test func childViewsWriteIntoTheSameTree() throws {
        let data = try data(#"{"title":"T"}"#)
        let count = data.childData(byAppendingPath: "stars/count")
        #expect(count.key == "count")
        #expect(count.value is NSNull)
        count.value = 3
        #expect(data.childData(byAppendingPath: "stars").childrenCount == 1)
        data.childData(byAppendingPath: "title").priority = "p"
        #expect(data.node.exportJSON().serialized() == #"{"stars":{"count":3},"title":{".value":"T",".priority":"p"}}"#)
        data.childData(byAppendingPath: "title").value = nil
        #expect(!data.hasChild(atPath: "title"))
        data.value = ["list": ["x", "y"]]
        #expect((data.value as? [String: Any])?["list"] as? [String] == ["x", "y"])
        #expect(data.validationError == nil)
    }

    @Test func invalidInputIsRecordedNotCrashing() throws {
        let data = try data("1")
        let same = data.childData(byAppendingPath: "a.b")
        #expect(same === data)
        #expect(data.validationError?.message.contains("a.b") == true)
        let other = try self.data("1")
        other.priority = true
        #expect(other.validationError?.code == .invalidArgument)
        #expect(other.value as? Int == 1)
    }

    @Test func transactionResults() throws {
        let data = try data("1")
        #expect(TransactionResult.success(withValue: data).isSuccess)
        #expect(!TransactionResult.abort().isSuccess)
    }
}
