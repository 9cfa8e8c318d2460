// swift-tools-version: 6.1
import PackageDescription

// One repository, two audiences. With its default trait, `Server`, this package builds Braid:
// the `braid` executable, its modules, the developer tool `braid-dev` and the tests. An app that
// wants only the Swift client adds the package without its default traits:
//
//     .package(url: "https://…/braid", from: "…", traits: [])
//
// and resolves only the client's dependencies (the OpenAPI runtime, its URLSession transport,
// HTTP types and collections): every other product below is used under the `Server` trait
// only, and SwiftPM leaves such packages out of an app's resolution. `ClientPackageTests`
// resolves the client the way an app does and counts what comes along.

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

/// `braid` allocates through jemalloc (Debian's libjemalloc2; libjemalloc-dev to build): on
/// glibc's allocator the gateway's resident memory kept rising for minutes after its caches
/// were full (BENCHMARKS.md, soak). Linked, it takes `malloc` for the whole process.
let jemalloc: [LinkerSetting] = [.linkedLibrary("jemalloc", .when(platforms: [.linux]))]

/// A product of another package that only the server side uses.
func server(_ name: String, _ package: String) -> Target.Dependency {
    .product(name: name, package: package, condition: .when(traits: ["Server"]))
}

// Products used by several targets, named once.
let crypto = server("Crypto", "swift-crypto")
let cryptoExtras = server("CryptoExtras", "swift-crypto")
let logging = server("Logging", "swift-log")
let metrics = server("Metrics", "swift-metrics")
let nioCore = server("NIOCore", "swift-nio")
let nioPosix = server("NIOPosix", "swift-nio")
let nioHTTP1 = server("NIOHTTP1", "swift-nio")
let nioFoundation = server("NIOFoundationCompat", "swift-nio")
let deque = server("DequeModule", "swift-collections")
let serviceLifecycle = server("ServiceLifecycle", "swift-service-lifecycle")
let tracing = server("Tracing", "swift-distributed-tracing")
let httpClient = server("AsyncHTTPClient", "async-http-client")
let hummingbird = server("Hummingbird", "hummingbird")
let argumentParser = server("ArgumentParser", "swift-argument-parser")
let jwt = server("JWTKit", "jwt-kit")

let package = Package(
    name: "Braid",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "BraidClient", targets: ["BraidClient"]),
        .executable(name: "braid", targets: ["braid"]),
        .executable(name: "braid-dev", targets: ["braid-dev"]),
        .executable(name: "braid-local", targets: ["braid-local"]),
    ],
    traits: [
        .trait(name: "Server", description: "Braid itself: the services, the CLI, the developer tool and the tests."),
        .default(enabledTraits: ["Server"]),
    ],
    dependencies: [
        // The client's.
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        // The server's (under the Server trait).
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.29.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.34.1"),
        // 4.x as well: jwt-kit 5 needs it (the APIs Braid uses are the same in both).
        .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"5.0.0"),
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
        // The Swift client for apps: the gateway's operations generated from
        // Schemas/openapi.yaml (Generated/, committed; `make test` checks it against the
        // document) and a small hand-written layer. Foundation, the OpenAPI runtime and the
        // URLSession transport only, so it builds for Apple platforms as well as Linux.
        .target(
            name: "BraidClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            exclude: ["Generated/openapi-generator-config.yaml", "Generated/generated-from.sha256", "CHANGELOG.md"],
            swiftSettings: strictness),

        // C libraries, found through pkg-config.
        .systemLibrary(name: "CRdKafka", pkgConfig: "rdkafka", providers: [.apt(["librdkafka-dev"])]),
        .systemLibrary(name: "CHiredis", pkgConfig: "hiredis", providers: [.apt(["libhiredis-dev"])]),
        // `sqlite3_interrupt` of sqlite-nio's own SQLite, which sqlite-nio does not expose: the
        // SQLite source stops a statement at its deadline with it.
        .target(name: "CSQLiteNIOInterrupt"),
        // A C face over libxapian 1.4 (Debian's libxapian-dev), the embedded search engine
        // behind the `xapian` live source: C++ inside, no exception crosses it.
        .target(name: "CXapianShim", linkerSettings: [.linkedLibrary("xapian")]),

        // Pure domain logic: interleaving, pagination, cursors, feeds, JSON values. No I/O.
        .target(name: "BraidCore", dependencies: [crypto], swiftSettings: strictness),

        // What crosses a process boundary: wire messages, the Redis key schema, cursor and
        // impression-id formats, shared limits, dead-letter header names, metric names.
        .target(name: "BraidContracts", dependencies: ["BraidCore", crypto], swiftSettings: strictness),

        // Async Swift over librdkafka.
        .target(
            name: "BraidKafka",
            dependencies: ["CRdKafka", logging, metrics, deque, serviceLifecycle, server("Instrumentation", "swift-distributed-tracing")],
            swiftSettings: strictness,
            linkerSettings: localLibrdkafka),

        // Async Redis client: SwiftNIO (+ NIOSSL for rediss://) for I/O, hiredis for the RESP
        // wire format; standalone or Redis Cluster.
        .target(
            name: "BraidRedis",
            dependencies: [
                "CHiredis", logging, nioCore, nioPosix, server("NIOSSL", "swift-nio-ssl"), server("NIOTLS", "swift-nio"), deque, crypto,
                serviceLifecycle,
            ],
            swiftSettings: strictness),

        // Configuration: one file plus BRAID_* overrides, typed and validated at load.
        .target(
            name: "BraidConfig", dependencies: ["BraidCore", "BraidContracts", server("Yams", "Yams")], swiftSettings: strictness),

        // Logging and metrics bootstrap, and the one /metrics endpoint.
        .target(
            name: "BraidObservability",
            dependencies: ["BraidContracts", crypto, logging, metrics, server("Prometheus", "swift-prometheus"), hummingbird, serviceLifecycle],
            swiftSettings: strictness),

        // Live search backends and the demo corpus (no configuration, no HTTP server).
        .target(
            name: "BraidSources",
            dependencies: [
                "BraidCore", "BraidContracts", "CSQLiteNIOInterrupt", "CXapianShim", logging, metrics, server("SQLiteNIO", "sqlite-nio"), nioPosix,
                httpClient,
                nioCore, nioFoundation, nioHTTP1,
            ],
            swiftSettings: strictness),

        // Experiments: team-draft credit, the experiment store and its Lua scripts, statistics,
        // sequential designs, layout bucketing, the sensitivity simulation and the planner.
        .target(
            name: "BraidExperiments", dependencies: ["BraidCore", "BraidContracts", "BraidRedis", crypto, nioCore],
            swiftSettings: strictness),

        // What both services share: the Redis store and its Lua scripts, the request
        // publisher, the materializers.
        .target(
            name: "BraidPrecompute",
            dependencies: ["BraidCore", "BraidContracts", "BraidKafka", "BraidRedis", "BraidSources", nioCore, nioFoundation, tracing],
            swiftSettings: strictness),

        // The worker service: consume loop, dispatcher, retries, dead-lettering, metrics.
        .target(
            name: "BraidWorker",
            dependencies: [
                "BraidCore", "BraidContracts", "BraidKafka", "BraidRedis", "BraidSources", "BraidPrecompute", "BraidExperiments",
                "BraidObservability", deque, logging, metrics, serviceLifecycle, tracing,
            ],
            swiftSettings: strictness),

        // The HTTP gateway service: routes, search pages, feeds, events, the console.
        .target(
            name: "BraidGateway",
            dependencies: [
                "BraidCore", "BraidContracts", "BraidKafka", "BraidRedis", "BraidSources", "BraidPrecompute", "BraidExperiments",
                "BraidObservability", deque, hummingbird, server("HummingbirdCore", "hummingbird"), server("HTTPTypes", "swift-http-types"),
                crypto, jwt, logging, metrics, nioCore, nioHTTP1, server("NIOHTTPTypes", "swift-nio-extras"),
                server("NIOHTTPTypesHTTP1", "swift-nio-extras"), serviceLifecycle, tracing,
            ],
            resources: [.embedInCode("Console/Resources")],
            swiftSettings: strictness),

        // The one place where configuration becomes clients and services, for every command.
        .target(
            name: "BraidWiring",
            dependencies: [
                "BraidConfig", "BraidCore", "BraidContracts", "BraidKafka", "BraidRedis", "BraidSources", "BraidPrecompute",
                "BraidExperiments", "BraidWorker", "BraidGateway", "BraidObservability", httpClient, nioCore, nioHTTP1, hummingbird,
                logging, serviceLifecycle, tracing, server("OTel", "swift-otel"),
            ],
            swiftSettings: strictness),

        // One CLI: version, plan, gateway, worker, publish, seed, ops, experiment.
        .executableTarget(
            name: "braid",
            dependencies: [
                "BraidCore", "BraidContracts", "BraidKafka", "BraidRedis", "BraidSources", "BraidPrecompute", "BraidWorker",
                "BraidConfig", "BraidWiring", "BraidExperiments", argumentParser, logging, serviceLifecycle,
                server("UnixSignals", "swift-service-lifecycle"),
            ],
            swiftSettings: strictness,
            linkerSettings: localLibrdkafka + jemalloc),

        // The local-stack harness: starts, waits for and stops redis-server (plain, TLS,
        // Cluster), the broker and `braid` services for tests, faults, benchmarks and
        // `make run`. Not part of `braid`; nothing in the product imports it.
        .target(name: "CBraidSpawn"),
        .target(name: "BraidHarness", dependencies: ["CBraidSpawn", httpClient, nioCore, nioHTTP1], swiftSettings: strictness),

        // Fixtures of the developer tools and the tests: the integration servers, a token
        // issuer of its own, a tiny HTTP server, session walkers, worker fixtures.
        .target(
            name: "BraidDevSupport",
            dependencies: [
                "BraidHarness", "BraidRedis", "BraidKafka", jwt, crypto, cryptoExtras, nioCore, nioPosix, nioHTTP1, httpClient,
            ],
            swiftSettings: strictness),

        // The fault scenarios of `make faults` (`braid-dev faults`): real processes, one fault
        // each, figures and a verdict; the integration tests that twin a scenario run it small.
        .target(
            name: "BraidFaults", dependencies: ["BraidCore", "BraidContracts", "BraidRedis", "BraidKafka", "BraidHarness", "BraidDevSupport"],
            swiftSettings: strictness),

        // The benchmarks of `make bench` (`braid-dev bench`): each group starts what it needs
        // through the harness, runs its external baseline (redis-benchmark, kcat, wrk) and
        // measures ours in the same run, and prints FIGURE and RATIO lines. A target of this
        // package, not a package of its own: a second package would compile every dependency
        // a second time in release. `braid` does not link it.
        .target(
            name: "BraidBenchmarks",
            dependencies: [
                "BraidHarness", "BraidCore", "BraidContracts", "BraidConfig", "BraidKafka", "BraidRedis", "BraidSources",
                "BraidPrecompute", "BraidGateway", "BraidWiring", hummingbird, server("SQLiteNIO", "sqlite-nio"), logging, nioCore, nioHTTP1,
                serviceLifecycle,
            ],
            path: "Benchmarks/BraidBenchmarks",
            swiftSettings: strictness,
            linkerSettings: localLibrdkafka),

        // `make run`: the whole system on its embedded defaults. Apart from braid-dev so that the
        // first `make run` of a fresh machine compiles only the harness (docs/getting-started.md).
        .executableTarget(
            name: "braid-local", dependencies: ["BraidHarness", argumentParser], path: "Sources/BraidLocal",
            swiftSettings: strictness),

        // The developer's front door (test, docs, browser, fuzz, attack, faults, bench):
        // drives the harness. Not shipped; the product is `braid`.
        .executableTarget(
            name: "braid-dev",
            dependencies: [
                "BraidHarness", "BraidDevSupport", "BraidFaults", "BraidBenchmarks", "BraidCore", "BraidContracts", argumentParser,
                httpClient, nioCore, logging, crypto, nioHTTP1,
            ],
            path: "Sources/BraidDev",
            swiftSettings: strictness,
            linkerSettings: localLibrdkafka),

        // Tests: the tiers' traits, the one way to wait (`eventually`), librdkafka's mock
        // cluster, the validators of the schemas and the OpenAPI document, and (re-exported)
        // the developer tools' fixtures.
        .target(
            name: "BraidTestSupport", dependencies: ["BraidDevSupport", "BraidHarness", "BraidCore", "BraidKafka", "CRdKafka"],
            path: "Tests/BraidTestSupport",
            swiftSettings: strictness,
            linkerSettings: localLibrdkafka),

        .testTarget(name: "BraidCoreTests", dependencies: ["BraidCore", "BraidTestSupport"], swiftSettings: strictness),
        .testTarget(
            name: "BraidContractsTests", dependencies: ["BraidContracts", "BraidCore", "BraidExperiments", "BraidTestSupport"],
            swiftSettings: strictness),
        .testTarget(
            name: "BraidExperimentsTests",
            dependencies: ["BraidExperiments", "BraidContracts", "BraidCore", "BraidRedis", "BraidPrecompute", "BraidTestSupport"],
            swiftSettings: strictness),
        .testTarget(
            name: "BraidKafkaTests", dependencies: ["BraidKafka", "BraidCore", "BraidTestSupport", "CRdKafka", logging, serviceLifecycle],
            swiftSettings: strictness,
            linkerSettings: localLibrdkafka),
        .testTarget(
            name: "BraidRedisTests",
            dependencies: [
                "BraidRedis", "BraidCore", "BraidContracts", "BraidTestSupport", "CHiredis", logging, nioCore, nioPosix,
                // Scripted nodes: NIOAsyncTestingChannel in place of sockets.
                server("NIOEmbedded", "swift-nio"),
            ],
            swiftSettings: strictness),
        .testTarget(name: "BraidConfigTests", dependencies: ["BraidConfig", "BraidCore", "BraidContracts"], swiftSettings: strictness),
        .testTarget(
            name: "BraidSourcesTests",
            dependencies: [
                "BraidSources", "BraidCore", "BraidContracts", "BraidTestSupport", server("SQLiteNIO", "sqlite-nio"), nioCore, nioPosix,
                nioHTTP1, httpClient,
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strictness),
        .testTarget(
            name: "BraidPrecomputeTests",
            dependencies: ["BraidPrecompute", "BraidCore", "BraidContracts", "BraidRedis", "BraidKafka", "BraidSources", "BraidTestSupport"],
            swiftSettings: strictness),
        .testTarget(
            name: "BraidWorkerTests",
            dependencies: [
                "BraidWorker", "BraidPrecompute", "BraidCore", "BraidContracts", "BraidRedis", "BraidKafka", "BraidSources",
                "BraidTestSupport", "BraidFaults", "BraidExperiments",
                // librdkafka's mock cluster, for the worker's retry path without a broker.
                "CRdKafka", logging, serviceLifecycle,
            ],
            swiftSettings: strictness,
            linkerSettings: localLibrdkafka),
        .testTarget(
            name: "BraidGatewayTests",
            dependencies: [
                "BraidGateway", "BraidWiring", "BraidConfig", "BraidPrecompute", "BraidExperiments", "BraidCore", "BraidContracts",
                "BraidRedis", "BraidKafka", "BraidSources", "BraidTestSupport", "BraidFaults", "BraidHarness", "BraidObservability",
                hummingbird, server("HummingbirdTesting", "hummingbird"), jwt, nioCore,
            ],
            swiftSettings: strictness),
        .testTarget(
            name: "BraidWiringTests",
            dependencies: [
                "BraidWiring", "BraidConfig", "BraidCore", "BraidContracts", "BraidRedis", "BraidSources", "BraidGateway", "BraidWorker",
                "BraidKafka", "BraidPrecompute", tracing, server("OTel", "swift-otel"),
            ],
            swiftSettings: strictness),
        .testTarget(
            name: "BraidCLITests",
            dependencies: [
                "braid", "BraidCore", "BraidContracts", "BraidKafka", "BraidRedis", "BraidPrecompute", "BraidWorker", "BraidTestSupport",
            ],
            swiftSettings: strictness),
        .testTarget(
            name: "BraidClientTests",
            dependencies: [
                "BraidClient", "BraidTestSupport", "BraidHarness", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"), server("Yams", "Yams"),
            ],
            swiftSettings: strictness),
        .testTarget(name: "BraidHarnessTests", dependencies: ["BraidHarness", "BraidTestSupport", "BraidConfig"], swiftSettings: strictness),
        // The fault scenarios' pure parts: printed lines, session checks, the DLQ reason tally.
        .testTarget(name: "BraidFaultsTests", dependencies: ["BraidFaults", "BraidTestSupport"], swiftSettings: strictness),
        .testTarget(name: "BraidBenchmarksTests", dependencies: ["BraidBenchmarks"], swiftSettings: strictness),
        // Deploy/: Kubernetes manifests, systemd units, configuration examples, Grafana dashboard.
        .testTarget(
            name: "BraidDeployTests", dependencies: ["BraidConfig", "BraidCore", "BraidContracts", "BraidKafka", "BraidTestSupport", server("Yams", "Yams")],
            swiftSettings: strictness),
    ]
)
