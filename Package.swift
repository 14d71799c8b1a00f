// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Canopy",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "Canopy", targets: ["Canopy"]),
        .library(name: "CanopyServer", targets: ["CanopyServer"]),
        .library(name: "CanopyTree", targets: ["CanopyTree"]),
        .library(name: "CanopyStorage", targets: ["CanopyStorage"]),
        .library(name: "CanopyWire", targets: ["CanopyWire"]),
        .library(name: "CanopyWebSocket", targets: ["CanopyWebSocket"]),
        .library(name: "CanopySync", targets: ["CanopySync"]),
        .library(name: "CanopyRules", targets: ["CanopyRules"]),
        .executable(name: "canopy", targets: ["canopy"]),
        .plugin(name: "CanopyEmulator", targets: ["CanopyEmulator"]),
    ],
    targets: [
        // System libraries.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev", "libssl-dev"]), .brew(["libwebsockets"])]
        ),

        // The data model: paths, nodes, JSON, ordering, queries, hashing, push ids.
        .target(name: "CanopyTree"),
        // Persistence protocols and backends (SQLite, JSON file, in memory).
        .target(name: "CanopyStorage", dependencies: ["CanopyTree", "CSQLite"]),
        // The wire protocol as Swift values, framing, transports, loopback.
        .target(name: "CanopyWire", dependencies: ["CanopyTree"]),
        // libwebsockets client transport and server listener.
        .target(name: "CanopyWebSocket", dependencies: ["CanopyWire", "CWebSockets"]),
        // The client engine.
        .target(name: "CanopySync", dependencies: ["CanopyTree", "CanopyStorage", "CanopyWire"]),
        // The public client API.
        .target(name: "Canopy", dependencies: ["CanopySync", "CanopyTree", "CanopyWire", "CanopyWebSocket"]),
        // Security rules.
        .target(name: "CanopyRules", dependencies: ["CanopyTree"]),
        // The server engine.
        .target(
            name: "CanopyServer",
            dependencies: ["CanopyTree", "CanopyStorage", "CanopyWire", "CanopyRules"]
        ),
        // The command-line tool.
        .executableTarget(
            name: "canopy",
            dependencies: ["Canopy", "CanopyServer", "CanopyWebSocket", "CanopyStorage"]
        ),
        // `swift package canopy-serve`: a local server for a package's tests, configured by canopy.json.
        .plugin(
            name: "CanopyEmulator",
            capability: .command(
                intent: .custom(
                    verb: "canopy-serve", description: "Run a local Canopy server configured by canopy.json"),
                permissions: [
                    .allowNetworkConnections(
                        scope: .local(ports: []), reason: "The Canopy server listens on a local port"),
                    .writeToPackageDirectory(reason: "The Canopy server keeps its data in the package directory"),
                ]
            ),
            dependencies: ["canopy"]
        ),
        // Applies writes from stdin to a store, acknowledging each; killed by the durability tests.
        .executableTarget(name: "canopy-storage-crasher", dependencies: ["CanopyStorage"]),
        // Connects to a server, registers onDisconnect operations, prints "ready"; killed by the end-to-end tests.
        .executableTarget(name: "canopy-test-client", dependencies: ["Canopy"]),
        // Benchmarks (executables that print ratios against a baseline measured in the same run).
        .target(name: "CanopyBenchmarkSupport"),
        .executableTarget(
            name: "CanopyJSONBenchmark",
            dependencies: ["CanopyBenchmarkSupport", "CanopyTree"]
        ),
        .executableTarget(
            name: "CanopySyncBenchmark",
            dependencies: [
                "CanopyBenchmarkSupport", "CanopySync", "CanopyServer", "CanopyStorage", "CanopyWire", "CanopyTree",
            ]
        ),
        .executableTarget(
            name: "CanopyWebSocketBenchmark",
            dependencies: [
                "CanopyBenchmarkSupport", "CanopyWebSocket", "CanopyServer", "CanopyStorage", "CanopyWire",
                "CWebSockets",
            ]
        ),

        // Shared by the test targets (they cannot import each other).
        .target(name: "CanopyTestSupport", dependencies: ["CanopyBenchmarkSupport"], path: "Tests/CanopyTestSupport"),
        .testTarget(name: "CanopyTreeTests", dependencies: ["CanopyTree", "CanopyTestSupport"]),
        .testTarget(
            name: "CanopyStorageTests", dependencies: ["CanopyStorage", "canopy-storage-crasher", "CanopyTestSupport"]),
        .testTarget(name: "CanopyWireTests", dependencies: ["CanopyWire"]),
        .testTarget(
            name: "CanopyWebSocketTests",
            dependencies: ["CanopyWebSocket", "CanopyServer", "CanopyStorage", "CanopyTestSupport"]),
        .testTarget(name: "CanopySyncTests", dependencies: ["CanopySync", "CanopyServer"]),
        .testTarget(
            name: "CanopyServerTests",
            dependencies: ["CanopyServer", "CanopySync", "CanopyWebSocket", "CanopyTestSupport"]),
        // The sample-app scenarios, shared by the loopback and the end-to-end tests.
        .target(name: "CanopyScenarios", dependencies: ["Canopy"], path: "Tests/CanopyScenarios"),
        .testTarget(name: "CanopyTests", dependencies: ["Canopy", "CanopyServer", "CanopyScenarios"]),
        .testTarget(name: "CanopyCLITests", dependencies: ["canopy", "CanopyTree", "CanopyTestSupport"]),
        .testTarget(
            name: "CanopyEndToEndTests",
            dependencies: [
                "Canopy", "CanopyScenarios", "CanopyWebSocket", "CanopyTestSupport", "canopy", "canopy-test-client",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
