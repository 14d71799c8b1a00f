import CanopyTree
import Testing

@Suite struct SHA1Tests {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { b in
            let s = String(b, radix: 16)
            return s.count == 1 ? "0" + s : s
        }.joined()
    }

    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "a49b2446a02c645bf419f995b67091253a04a259"
        ),
        ("The quick brown fox jumps over the lazy dog", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"),
    ])
    func standardVectors(input: String, digest: String) {
        #expect(hex(SHA1.digest(input.utf8)) == digest)
    }

    @Test func millionAs() {
        var sha = SHA1()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { sha.update(chunk) }
        #expect(hex(sha.finalize()) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test func paddingBoundaries() {
        // Lengths around the 55/56/64-byte padding boundaries, fed whole and byte by byte.
        let expected: [Int: String] = [
            55: "c1c8bbdc22796e28c0e15163d20899b65621d65a",
            56: "c2db330f6083854c99d4b5bfb6e8f29f201be699",
            63: "03f09f5b158a7a8cdad920bddc29b81c18a551f5",
            64: "0098ba824b5c16427bd7a1122a5a442a25ec644d",
        ]
        for (length, digest) in expected {
            let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
            #expect(hex(SHA1.digest(bytes)) == digest, "length \(length)")
            var sha = SHA1()
            for byte in bytes { sha.update([byte]) }
            #expect(hex(sha.finalize()) == digest, "length \(length), byte by byte")
            // A non-contiguous sequence takes the copying path.
            #expect(hex(SHA1.digest(bytes.lazy.map { $0 })) == digest, "length \(length), lazy sequence")
            var split = SHA1()
            split.update(bytes.prefix(length / 3))
            split.update(bytes.dropFirst(length / 3))
            #expect(hex(split.finalize()) == digest, "length \(length), two parts")
        }
    }
}

@Suite struct Base64Tests {
    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ])
    func rfc4648Vectors(input: String, encoded: String) {
        #expect(Base64.encode(Array(input.utf8)) == encoded)
    }

    @Test func fullAlphabet() {
        let bytes: [UInt8] = [
            0x00, 0x10, 0x83, 0x10, 0x51, 0x87, 0x20, 0x92, 0x8b, 0x30, 0xd3, 0x8f,
            0x41, 0x14, 0x93, 0x51, 0x55, 0x97, 0x61, 0x96, 0x9b, 0x71, 0xd7, 0x9f,
            0x82, 0x18, 0xa3, 0x92, 0x59, 0xa7, 0xa2, 0x9a, 0xab, 0xb2, 0xdb, 0xaf,
            0xc3, 0x1c, 0xb3, 0xd3, 0x5d, 0xb7, 0xe3, 0x9e, 0xbb, 0xf3, 0xdf, 0xbf,
        ]
        #expect(Base64.encode(bytes) == "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    }
}

/// protocol.md §6.3, every row of the worked-examples table and the "useful leaf hashes".
@Suite struct NodeHashTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let json: JSONValue
        let hashString: String?
        let hash: String
        var testDescription: String { name }
    }

    static let vectors: [Vector] = [
        Vector(name: "null", json: .null, hashString: "", hash: ""),
        Vector(name: "true", json: .bool(true), hashString: "boolean:true", hash: "E5z61QM0lN/U2WsOnusszCTkR8M="),
        Vector(name: "false", json: .bool(false), hashString: "boolean:false", hash: "aSSNoqcS4oQwJ2xxH20rvpp3zP0="),
        Vector(name: "hello", json: .string("hello"), hashString: "string:hello", hash: "z6sRbrNLwbHX5fdjpvsTtWgXUFc="),
        Vector(name: "empty string", json: .string(""), hashString: "string:", hash: "Ki0Xy0V6morg0TO3Sxi/jwugYDQ="),
        Vector(
            name: "non-ASCII string", json: .string("héllo ✓"), hashString: "string:héllo ✓",
            hash: "vijw7jGnUcFsGJ49LX3Up/4j4q0="),
        Vector(name: "10", json: .int(10), hashString: "number:4024000000000000", hash: "+r5aI9HvKKagELki8SYKBk0q7D4="),
        Vector(
            name: "10.0 as double", json: .double(10), hashString: "number:4024000000000000",
            hash: "+r5aI9HvKKagELki8SYKBk0q7D4="),
        Vector(name: "42", json: .int(42), hashString: "number:4045000000000000", hash: "bQ5XV5L9riGZgerGMb/8Z87RxeI="),
        Vector(
            name: "1.5", json: .double(1.5), hashString: "number:3ff8000000000000", hash: "4MftviR9Z/2MQCMkjh2RNbvlLJc="
        ),
        Vector(
            name: "-0.0", json: .double(-0.0), hashString: "number:8000000000000000",
            hash: "m/gA365Q5OBo06Bg8wdybAAiMSQ="),
        Vector(
            name: "two children", json: .keyed(["a": .int(1), "b": .string("x")]),
            hashString: ":a:YPVfR2bXt/lcDjiQZ8pOkAd3qkQ=:b:OJSeRnP1mf0vTrhq7izmWGPiNx4=",
            hash: "jRI9dwRS9sb4SWm8uuoN7+xBk4g="),
        Vector(
            name: "two children, other member order", json: .keyed(["b": .string("x"), "a": .int(1)]),
            hashString: ":a:YPVfR2bXt/lcDjiQZ8pOkAd3qkQ=:b:OJSeRnP1mf0vTrhq7izmWGPiNx4=",
            hash: "jRI9dwRS9sb4SWm8uuoN7+xBk4g="),
        Vector(
            name: "leaf child with priority", json: .keyed(["a": .keyed([".value": .int(1), ".priority": .int(5)])]),
            hashString: ":a:C6BwQ8cWaQAaTPvogioX7cMcHt0=", hash: "frVJ9V1mlHrJvYsgG4TqbPoIXaA="),
        Vector(
            name: "leaf with priority",
            json: .keyed([".value": .int(1), ".priority": .int(5)]),
            hashString: "priority:number:4014000000000000:number:3ff0000000000000",
            hash: "C6BwQ8cWaQAaTPvogioX7cMcHt0="),
        Vector(
            name: "children node with priority", json: .keyed([".priority": .string("p"), "x": .bool(true)]),
            hashString: "priority:string:p::x:E5z61QM0lN/U2WsOnusszCTkR8M=", hash: "WHRY7vtDEoptZ/k+hGyR/Zwg64E="),
        Vector(
            name: "no-priority child first",
            json: .keyed(["b": .keyed([".value": .int(1), ".priority": .int(1)]), "a": .int(2)]),
            hashString: ":a:WtSt2Xo3L0JtPuArzQHofPrZOuU=:b:MEW0UDkkMtVWOWOEkIqiXwuoUGs=",
            hash: "6+ms3978YbL3uxa5k5sX0S8scso="),
        Vector(
            name: "priority order, not key order",
            json: .keyed([
                "a": .keyed([".value": .int(1), ".priority": .int(2)]),
                "b": .keyed([".value": .int(2), ".priority": .int(1)]),
            ]),
            hashString: ":b:iiz9CIvYWkKdETTpjVFBJNx1SiI=:a:FvGzv2x5RbRTIc6uhMwY3pMW2oU=",
            hash: "/3lk7Vfl5OYG6Kw2SkiPXNeExPw="),
        Vector(
            name: "integer keys in key order", json: .keyed(["10": .int(1), "9": .int(2), "a": .int(3)]),
            hashString:
                ":9:WtSt2Xo3L0JtPuArzQHofPrZOuU=:10:YPVfR2bXt/lcDjiQZ8pOkAd3qkQ=:a:3tYODYzGXwaGnXNech4jb4T9las=",
            hash: "m2yjQlTp8QU+bhHk6ou4o/HIgZ0="),
        Vector(
            name: "array", json: .array([.string("x"), .string("y")]),
            hashString: ":0:OJSeRnP1mf0vTrhq7izmWGPiNx4=:1:JbVTIhYSr66j91vTDZkfkIRZgUo=",
            hash: "KtuknfwwJhsB3RrZnwAxD3+/Drs="),
        Vector(
            name: "users",
            json: .keyed([
                "users": .keyed([
                    "alice": .keyed(["name": .string("Alice"), "age": .int(30)]),
                    "bob": .keyed(["name": .string("Bob"), "age": .int(25)]),
                ])
            ]),
            hashString: ":users:iVwYZF1XQ+0Wenj0/i4IFBjKEYc=", hash: "2P8SKo3ARUWOsWluSytV3rWczEw="),
        Vector(
            name: "users child",
            json: .keyed([
                "alice": .keyed(["name": .string("Alice"), "age": .int(30)]),
                "bob": .keyed(["name": .string("Bob"), "age": .int(25)]),
            ]),
            hashString: ":alice:a69R1xEIVpj/9ixDWDvt7SpLtXg=:bob:XjhPuZh8UIf3pPRSuubGXTbcFms=",
            hash: "iVwYZF1XQ+0Wenj0/i4IFBjKEYc="),
        Vector(name: "empty object", json: .keyed(["a": .null, "b": .keyed([:])]), hashString: "", hash: ""),
        Vector(name: "leaf 1", json: .int(1), hashString: nil, hash: "YPVfR2bXt/lcDjiQZ8pOkAd3qkQ="),
        Vector(name: "leaf 2", json: .int(2), hashString: nil, hash: "WtSt2Xo3L0JtPuArzQHofPrZOuU="),
        Vector(name: "leaf 3", json: .int(3), hashString: nil, hash: "3tYODYzGXwaGnXNech4jb4T9las="),
        Vector(name: "leaf 12", json: .int(12), hashString: nil, hash: "faLmDyyRLmn84BABqn7M8fPeH54="),
        Vector(name: "leaf x", json: .string("x"), hashString: nil, hash: "OJSeRnP1mf0vTrhq7izmWGPiNx4="),
        Vector(name: "leaf y", json: .string("y"), hashString: nil, hash: "JbVTIhYSr66j91vTDZkfkIRZgUo="),
    ]

    @Test(arguments: vectors)
    func workedExample(_ vector: Vector) throws {
        let node = try Node(json: vector.json)
        if let hashString = vector.hashString {
            #expect(node.hashString == hashString)
        }
        #expect(node.hash == vector.hash)
    }

    @Test func hashIsAlways28CharactersForNonEmptyNodes() throws {
        for vector in Self.vectors where !vector.hash.isEmpty {
            #expect(try Node(json: vector.json).hash.utf8.count == 28, "\(vector.name)")
        }
    }

    @Test func exactBitsForAllOnesMantissa() {
        // 2^53 - 1: exact IEEE-754 bits (the JS client's logarithm-based encoding differs).
        #expect(Node(leaf: .int(9_007_199_254_740_991)).hashString == "number:433fffffffffffff")
        #expect(Node(leaf: .double(-1.5)).hashString == "number:bff8000000000000")
    }

    @Test func mixedPriorityKinds() {
        // No priority < numeric priorities ascending < string priorities; ties by key order.
        let map = ChildMap([
            (ChildKey("a"), Node(leaf: .int(1), priority: .string("b"))),
            (ChildKey("b"), Node(leaf: .int(1), priority: .string("a"))),
            (ChildKey("c"), Node(leaf: .int(1), priority: .int(10))),
            (ChildKey("d"), Node(leaf: .int(1), priority: .double(2.5))),
            (ChildKey("e"), Node(leaf: .int(1))),
            (ChildKey("f"), Node(leaf: .int(1), priority: .int(10))),
        ])
        let order = Node(children: map).hashString.split(separator: ":").enumerated()
            .filter { $0.offset % 2 == 0 }.map { String($0.element) }
        #expect(order == ["e", "d", "c", "f", "b", "a"])
    }

    @Test func placeholderLeavesHashLikeTheJavaScriptClient() {
        #expect(Node(leaf: .serverValue(.timestamp)).hashString == "object:[object Object]")
        #expect(
            Node(leaf: .int(1), priority: .serverValue(.timestamp)).hashString
                == "priority:string:[object Object]:number:3ff0000000000000")
    }
}
