import BraidTestSupport
import Foundation
import Testing

/// An app adds the client as docs/swift-client.md says (this repository as a package, without
/// its default traits, depending on the BraidClient product), and SwiftPM resolves what the
/// client needs and nothing of the server's.
///
/// Counted: the pins of the app's Package.resolved after `swift package resolve`, that is every
/// package SwiftPM fetched for it besides this repository (a path dependency is not pinned).
@Suite("The client as an app adds it", .computeHeavy)
struct ClientPackageTests {
    static let maximum = 5
    /// Packages of the server side that an app must never fetch.
    static let server = ["swift-nio", "hummingbird", "async-http-client", "swift-crypto", "jwt-kit", "sqlite-nio", "swift-otel", "yams"]

    @Test func addingTheClientResolvesAtMostFivePackagesAndNoneOfTheServers() throws {
        let app = FileManager.default.temporaryDirectory.appendingPathComponent("braid-client-app-\(UUID().uuidString.prefix(8))")
        let sources = app.appendingPathComponent("Sources/App")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: app) }
        try """
            // swift-tools-version: 6.1
            import PackageDescription
            let package = Package(
                name: "App",
                platforms: [.macOS(.v15), .iOS(.v18)],
                dependencies: [.package(path: "\(RepositoryPaths.root.path)", traits: [])],
                targets: [.executableTarget(name: "App", dependencies: [.product(name: "BraidClient", package: "\(RepositoryPaths.root.lastPathComponent.lowercased())")])])
            """.write(to: app.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try "import BraidClient\n".write(to: sources.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)

        let resolve = try Self.swift(["package", "resolve"], in: app)
        try #require(resolve.status == 0, "swift package resolve failed: \(resolve.output)")
        let resolved = try JSONSerialization.jsonObject(with: Data(contentsOf: app.appendingPathComponent("Package.resolved"))) as? [String: Any]
        let pins = (resolved?["pins"] as? [[String: Any]] ?? []).compactMap { $0["identity"] as? String }.sorted()
        #expect(!pins.isEmpty && pins.count <= Self.maximum, "\(pins.count) packages: \(pins)")
        #expect(pins.contains("swift-openapi-runtime") && pins.contains("swift-openapi-urlsession"), "\(pins)")
        let serverSide = pins.filter(Self.server.contains)
        #expect(serverSide.isEmpty, "server packages resolved for the client: \(serverSide)")
    }

    static func swift(_ arguments: [String], in directory: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift"] + arguments
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
