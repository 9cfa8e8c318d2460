import Foundation

/// The secrets a `braid` service needs to start when it listens beyond loopback.
///
/// Such a service refuses to start with a missing, development or weak secret, and a gateway
/// refuses `identity.mode: query` (README "Security"). A service the harness places on another
/// address (a network namespace, a container network) gets a fresh random value for each
/// secret its environment does not set, and a gateway without an identity mode gets the proxy
/// mode with a random proxy secret. On loopback nothing is added: `make run`'s development
/// defaults stay as they are.
public enum ExposedServiceSecrets {
    /// Variables of the hosts a service binds, with the section and key that set them in a
    /// configuration file.
    static func hostSettings(of kind: BraidService.Kind) -> [(variable: String, section: String, key: String)] {
        switch kind {
        case .gateway:
            [("BRAID_GATEWAY_HOST", "gateway", "host"), ("BRAID_GATEWAY_ADMIN_HOST", "gateway", "admin_host")]
        case .worker:
            [("BRAID_WORKER_METRICS_HOST", "worker", "metrics_host")]
        }
    }

    /// The secret variables a service holds (each may also be given as `<name>_FILE`).
    static func secretVariables(of kind: BraidService.Kind) -> [String] {
        switch kind {
        case .gateway: ["BRAID_GATEWAY_CURSOR_KEY", "BRAID_GATEWAY_IMPRESSION_KEY", "BRAID_CONSOLE_TOKEN", "BRAID_ADMIN_TOKEN"]
        case .worker: ["BRAID_ADMIN_TOKEN"]
        }
    }

    /// `environment` with what a `kind` service started with `arguments` lacks to start beyond
    /// loopback; unchanged when every host it binds is loopback.
    public static func completing(
        _ environment: [String: String], for kind: BraidService.Kind, arguments: [String] = [],
        random: () -> String = ExposedServiceSecrets.random
    ) -> [String: String] {
        let file = configurationText(arguments)
        let hosts = hostSettings(of: kind).compactMap { setting in
            environment[setting.variable] ?? file.flatMap { value(of: setting.key, in: setting.section, of: $0) }
        }
        guard hosts.contains(where: { !$0.isEmpty && !isLoopback($0) }) else { return environment }
        var completed = environment
        let given = { (name: String) in environment[name] != nil || environment[name + "_FILE"] != nil }
        for name in secretVariables(of: kind) where !given(name) {
            completed[name] = random()
        }
        if kind == .gateway, !given("BRAID_IDENTITY_MODE"), file.flatMap({ value(of: "mode", in: "identity", of: $0) }) == nil {
            completed["BRAID_IDENTITY_MODE"] = "proxy"
            if !given("BRAID_IDENTITY_PROXY_SECRET") { completed["BRAID_IDENTITY_PROXY_SECRET"] = random() }
        }
        return completed
    }

    /// 32 random bytes in hex: a secret no deny list knows.
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
    }

    /// Only the spellings of loopback the harness writes: 127.0.0.0/8, `::1`, `localhost`.
    /// Anything else counts as exposed, so a doubtful host gets secrets rather than a refusal.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare == "localhost" || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// The text of the file after `--config` (or `--config=`), if any.
    static func configurationText(_ arguments: [String]) -> String? {
        var path: String?
        for (index, argument) in arguments.enumerated() {
            if argument == "--config", index + 1 < arguments.count { path = arguments[index + 1] }
            if argument.hasPrefix("--config=") { path = String(argument.dropFirst("--config=".count)) }
        }
        return path.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }
    }

    /// `section.key` of a YAML file in the block style Braid's files use (a top-level
    /// `section:` line, then indented `key: value` lines); nil when absent.
    static func value(of key: String, in section: String, of yaml: String) -> String? {
        var current: Substring?
        for line in yaml.split(separator: "\n") {
            let text = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            if !text.hasPrefix(" ") {
                current = text.hasSuffix(":") ? text.dropLast() : nil
                continue
            }
            guard current == Substring(section) else { continue }
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix(key + ":") else { continue }
            let value = trimmed.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
            return value.trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
        }
        return nil
    }
}
