// swift-tools-version: 6.1
import PackageDescription

/// Swift 6 language mode everywhere, plus the two upcoming features the models use:
/// explicit `any` for existentials and imports that must name every module they use.
let strictness: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// Debian's librdkafka 2.0.2 cannot talk to current brokers (docs/local-stack.md). The bootstrap
/// puts a newer one at `.lib/librdkafka.so.1`; this rpath makes every binary built here
/// (executables and test bundles under `.build/<triple>/<config>/`) find it first, without
/// depending on LD_LIBRARY_PATH. Release tarballs (`make dist`) carry librdkafka next to the
/// binary instead, with the rpath set to `$ORIGIN` by Deploy/local/dist.sh.
let localLibrdkafka: [LinkerSetting] = [
    .unsafeFlags(["-Xlinker", "-rpath", "-Xlinker", "$ORIGIN/../../../.lib"], .when(platforms: [.linux]))
]

let package = Package(
    name: "Braid",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "braid", targets: ["braid"]),
        .executable(name: "braid-dev", targets: ["braid-dev"]),
        .library(name: "BraidCore", targets: ["BraidCore"]),
        .library(name: "BraidKafka", targets: ["BraidKafka"]),
        .library(name: "BraidRedis", targets: ["BraidRedis"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.29.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.34.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.3.0"),
        // 4.x as well: jwt-kit 5 needs it (the APIs Braid uses are the same in both).
        .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.24.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.5.0"),
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.10.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.0"),
        // Verifying the users' JWTs (HS256, RS256, ES256; JWKS).
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.1.0"),
        // OTLP/HTTP only: the default traits also build the gRPC exporter (grpc-swift 2, its NIO
        // transport and protobuf glue), minutes of clean build for a transport we do not offer.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // C libraries, found through pkg-config.
        .systemLibrary(
            name: "CRdKafka", pkgConfig: "rdkafka",
            providers: [.apt(["librdkafka-dev"])]),
        .systemLibrary(
            name: "CHiredis", pkgConfig: "hiredis",
            providers: [.apt(["libhiredis-dev"])]),

        // Pure domain logic: interleaving, pagination, cursors, key schema. No I/O.
        .target(
            name: "BraidCore",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto")
            ],
            swiftSettings: strictness),

        // Async Swift over librdkafka.
        .target(
            name: "BraidKafka",
            dependencies: [
                "CRdKafka",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictness,
            linkerSettings: localLibrdkafka),

        // Async Redis client: SwiftNIO (+ NIOSSL for rediss://) for I/O, hiredis for the RESP
        // wire format; standalone or Redis Cluster.
        .target(
            name: "BraidRedis",
            dependencies: [
                "CHiredis",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictness),

        // Configuration: one file plus BRAID_* overrides, typed and validated at load.
        .target(
            name: "BraidConfig",
            dependencies: [
                "BraidCore",
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strictness),

        // Logging and metrics bootstrap, and the one /metrics endpoint.
        .target(
            name: "BraidObservability",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictness),

        // `sqlite3_interrupt` of sqlite-nio's own SQLite, which sqlite-nio does not expose: the
        // SQLite source stops a statement at its deadline with it.
        .target(name: "CSQLiteNIOInterrupt"),
        // Live search backends and the demo corpus (no configuration, no HTTP server).
        .target(
            name: "BraidSources",
            dependencies: [
                "BraidCore", "CSQLiteNIOInterrupt",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictness),

        // What both services share: the Redis store and its Lua scripts, the request
        // publisher, the materializers, the experiment store.
        .target(
            name: "BraidPrecompute",
            dependencies: [
                "BraidCore", "BraidKafka", "BraidRedis", "BraidSources",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictness),

        // The worker service: consume loop, dispatcher, retries, dead-lettering, metrics.
        .target(
            name: "BraidWorker",
            dependencies: [
                "BraidCore", "BraidKafka", "BraidRedis", "BraidSources", "BraidPrecompute",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictness),

        // The HTTP gateway service: routes, search pages, feeds, events.
        .target(
            name: "BraidGateway",
            dependencies: [
                "BraidCore", "BraidKafka", "BraidRedis", "BraidSources", "BraidPrecompute", "BraidObservability",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            resources: [.embedInCode("Console/Resources")],
            swiftSettings: strictness),

        // The one place where configuration becomes clients and services, for every command.
        .target(
            name: "BraidWiring",
            dependencies: [
                "BraidConfig", "BraidCore", "BraidKafka", "BraidRedis", "BraidSources", "BraidPrecompute", "BraidWorker",
                "BraidGateway", "BraidObservability",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel"),
            ],
            swiftSettings: strictness),

        // One CLI: version, plan, gateway, worker, publish, seed, ops, experiment.
        .executableTarget(
            name: "braid",
            dependencies: [
                "BraidCore", "BraidKafka", "BraidRedis", "BraidSources", "BraidPrecompute", "BraidWorker", "BraidConfig",
                "BraidWiring",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictness,
            linkerSettings: localLibrdkafka),

        // The local-stack harness: starts, waits for and stops redis-server (plain, TLS,
        // Cluster), the broker and `braid` services for tests, faults, benchmarks and
        // `make run`. Not part of `braid`; nothing in the product imports it.
        .target(name: "CBraidSpawn"),
        .target(
            name: "BraidHarness",
            dependencies: [
                "CBraidSpawn",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictness),

        // The developer's front door (make run, test, browser, fuzz, attack, faults, bench): drives
        // the harness. Not shipped; the product is `braid`.
        .executableTarget(
            name: "braid-dev",
            dependencies: [
                "BraidHarness", "BraidTestSupport", "BraidFaults", "BraidBenchmarks", "BraidCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Sources/BraidDev",
            swiftSettings: strictness,
            linkerSettings: localLibrdkafka),

        // The benchmarks of `make bench` (`braid-dev bench`): each group starts what it needs
        // through the harness, runs its external baseline (redis-benchmark, kcat, wrk) and
        // measures ours in the same run, and prints FIGURE and RATIO lines. A target of this
        // package, not a package of its own under Benchmarks/: a second package would compile
        // every dependency a second time in release (10+ minutes on 2 cores). `braid` does not
        // link it.
        .target(
            name: "BraidBenchmarks",
            dependencies: [
                "BraidHarness", "BraidCore", "BraidConfig", "BraidKafka", "BraidRedis", "BraidSources", "BraidPrecompute",
                "BraidWiring",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Benchmarks/BraidBenchmarks",
            swiftSettings: strictness,
            linkerSettings: localLibrdkafka),

        // Test helpers: the integration tier's servers (from BRAID_TEST_* or started through the
        // harness), its trait, and fixtures shared by tests, fault scenarios and benchmarks.
        .target(
            name: "BraidTestSupport",
            dependencies: [
                "BraidRedis", "BraidKafka", "BraidHarness",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Tests/BraidTestSupport",
            swiftSettings: strictness),

        // The fault scenarios of `make faults` (`braid-dev faults`): real processes, one fault
        // each, figures and a verdict. Test machinery like BraidTestSupport, whose fixtures they
        // use; the integration tests that twin a scenario run it at a small scale.
        .target(
            name: "BraidFaults",
            dependencies: ["BraidCore", "BraidRedis", "BraidKafka", "BraidHarness", "BraidTestSupport"],
            path: "Tests/BraidFaults",
            swiftSettings: strictness),

        .testTarget(
            name: "BraidBenchmarksTests",
            dependencies: ["BraidBenchmarks"],
            swiftSettings: strictness),
        .testTarget(
            name: "BraidCoreTests",
            dependencies: ["BraidCore", "BraidTestSupport"],
            swiftSettings: strictness),
        .testTarget(
            name: "BraidCLITests",
            dependencies: ["braid", "BraidCore", "BraidKafka", "BraidRedis", "BraidPrecompute", "BraidWorker", "BraidTestSupport"],
            swiftSettings: strictness),
        .testTarget(
            name: "BraidPrecomputeTests",
            dependencies: ["BraidPrecompute", "BraidCore", "BraidRedis", "BraidKafka", "BraidSources", "BraidTestSupport"],
            swiftSettings: strictness),
        .testTarget(
            name: "BraidWorkerTests",
            dependencies: [
                "BraidWorker", "BraidPrecompute", "BraidCore", "BraidRedis", "BraidKafka", "BraidSources", "BraidTestSupport", "BraidFaults",
                // librdkafka's mock cluster, for the worker's retry path without a broker.
                "CRdKafka",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictness,
            linkerSettings: localLibrdkafka),
        .testTarget(
            name: "BraidGatewayTests",
            dependencies: [
                "BraidGateway", "BraidWiring", "BraidConfig", "BraidPrecompute", "BraidCore", "BraidRedis", "BraidKafka",
                "BraidSources", "BraidTestSupport", "BraidFaults", "BraidHarness", "BraidObservability",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictness),
        .testTarget(
            name: "BraidContractTests",
            dependencies: ["BraidCore", "BraidTestSupport"],
            swiftSettings: strictness),
        .testTarget(
            name: "BraidSourcesTests",
            dependencies: [
                "BraidSources", "BraidCore", "BraidTestSupport",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strictness),
        .testTarget(
            name: "BraidConfigTests",
            dependencies: ["BraidConfig", "BraidCore"],
            swiftSettings: strictness),
        .testTarget(
            name: "BraidWiringTests",
            dependencies: [
                "BraidWiring", "BraidConfig", "BraidCore", "BraidRedis", "BraidSources", "BraidGateway", "BraidWorker",
                "BraidKafka", "BraidPrecompute",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel"),
            ],
            swiftSettings: strictness),
        .testTarget(
            name: "BraidKafkaTests",
            dependencies: [
                "BraidKafka", "BraidTestSupport", "CRdKafka",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictness,
            linkerSettings: localLibrdkafka),
        .testTarget(
            name: "BraidRedisTests",
            dependencies: [
                "BraidRedis", "BraidCore", "BraidTestSupport", "CHiredis",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // Scripted nodes: NIOAsyncTestingChannel in place of sockets.
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: strictness),
        .testTarget(
            name: "BraidHarnessTests",
            dependencies: ["BraidHarness", "BraidTestSupport", "BraidConfig"],
            swiftSettings: strictness),
        // The fault scenarios' pure parts: printed lines, session checks, the DLQ reason tally.
        .testTarget(
            name: "BraidFaultsTests",
            dependencies: ["BraidFaults", "BraidTestSupport"],
            swiftSettings: strictness),
        // Deploy/: Kubernetes manifests, systemd units, configuration examples, Grafana dashboard.
        .testTarget(
            name: "BraidDeployTests",
            dependencies: ["BraidConfig", "BraidCore", .product(name: "Yams", package: "Yams")],
            swiftSettings: strictness),
    ]
)

// Experiments (issue 16): the sensitivity simulation behind `braid experiment simulate`, pure
// (BraidCore only) and unit-tested. Appended rather than woven in, so it merges cleanly with
// the module restructuring; fold it into the lists above when convenient.
package.targets += [
    .target(
        name: "BraidExperiments",
        dependencies: ["BraidCore"],
        swiftSettings: strictness),
    .testTarget(
        name: "BraidExperimentsTests",
        dependencies: ["BraidExperiments", "BraidCore", "BraidTestSupport"],
        swiftSettings: strictness),
]
package.targets.first { $0.name == "braid" }?.dependencies.append("BraidExperiments")

// The Swift client for app teams (issue 25): the gateway's operations generated from
// Schemas/openapi.yaml by swift-openapi-generator (Sources/BraidClient/Generated, committed and
// checked against the document by `make test`: Deploy/local/client-generate.sh), and a small
// hand-written layer over them. It uses only Foundation, the OpenAPI runtime and the URLSession
// transport, so it builds for Apple platforms as well as Linux.
package.platforms = [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)]
package.products += [.library(name: "BraidClient", targets: ["BraidClient"])]
package.dependencies += [
    .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.0"),
    .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
]
package.targets += [
    .target(
        name: "BraidClient",
        dependencies: [
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "DequeModule", package: "swift-collections"),
        ],
        exclude: ["Generated/openapi-generator-config.yaml", "Generated/generated-from.sha256"],
        swiftSettings: strictness),
    .testTarget(
        name: "BraidClientTests",
        dependencies: [
            "BraidClient", "BraidTestSupport", "BraidHarness",
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ],
        swiftSettings: strictness),
]
// The gateway reads each experiment's sequential decision (issue 36) with BraidExperiments' designs.
package.targets.first { $0.name == "BraidGateway" }?.dependencies.append("BraidExperiments")
