import Foundation

/// Where the local stack's programs are, and the environment its children start with.
///
/// `Deploy/local/bootstrap.sh` installs them: Debian's redis-server and redis-cli, the broker
/// (tansu) and librdkafka ≥ 2.2 under `.lib/`, a virtualenv under `.venv/`.
public enum Toolchain {
    /// The repository: `BRAID_ROOT` when set, else found from this file's place in it.
    public static let root: URL = {
        if let root = ProcessInfo.processInfo.environment["BRAID_ROOT"], !root.isEmpty {
            return URL(fileURLWithPath: root, isDirectory: true)
        }
        return URL(fileURLWithPath: #filePath)  // Sources/BraidHarness/Toolchain.swift
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }()

    /// `.lib/`: librdkafka.so.1 (≥ 2.2) and the tansu broker.
    public static var lib: URL { root.appendingPathComponent(".lib", isDirectory: true) }
    public static var venv: URL { root.appendingPathComponent(".venv", isDirectory: true) }
    public static var python: String { venv.appendingPathComponent("bin/python").path }
    public static var tansu: String { lib.appendingPathComponent("tansu").path }

    /// The environment of every child: this process's, with `.lib` first on the library path
    /// (Debian's librdkafka 2.0.2 cannot talk to the broker; kcat needs the newer one too) and
    /// `.lib` and `.venv/bin` first on PATH.
    public static let childEnvironment: [String: String] = {
        var environment = ProcessInfo.processInfo.environment
        func prepend(_ value: String, to name: String) {
            let old = environment[name] ?? ""
            environment[name] = old.isEmpty ? value : "\(value):\(old)"
        }
        prepend(lib.path, to: "LD_LIBRARY_PATH")
        prepend("\(lib.path):\(venv.appendingPathComponent("bin").path)", to: "PATH")
        return environment
    }()

    /// The absolute path of `name` on the children's PATH.
    public static func find(_ name: String) throws(HarnessError) -> String {
        for directory in (childEnvironment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw .missingTool(name, hint: "run Deploy/local/bootstrap.sh (make run and make test do)")
    }
}
