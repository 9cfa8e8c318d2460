import BraidCore
import Foundation

/// Which `braid` process a check is for: each binds its own sockets and holds its own secrets.
public enum ServiceRole: String, Sendable {
    case gateway, worker
    /// A one-shot command (`braid ops`, `braid publish`): binds nothing, verifies no user.
    case tool
}

/// Which of a process's sockets a listener is.
public enum ListenerRole: String, Sendable, CaseIterable {
    /// The gateway's public routes (and, without an admin listener, the admin surface).
    case gatewayPublic
    /// The gateway's admin surface on a listener of its own.
    case gatewayAdmin
    /// A worker's `/metrics` and `/healthz`.
    case workerMetrics

    /// The configuration key of the listener's host.
    public var key: String {
        switch self {
        case .gatewayPublic: "gateway.host"
        case .gatewayAdmin: "gateway.admin_host"
        case .workerMetrics: "worker.metrics_host"
        }
    }
}

/// A socket a service binds, after its host was resolved and checked.
public struct ResolvedListener: Sendable, Equatable {
    public var role: ListenerRole
    /// The configuration key of the host (``ListenerRole/key``).
    public var key: String { role.key }
    public var host: String
    /// The numeric address to bind: the one that was checked.
    public var address: String
    public var port: Int
    /// Whether every address `host` resolves to is loopback.
    public var isLoopback: Bool
}

extension BraidConfiguration {
    /// The hosts a service binds, with their ports.
    public func listeners(of role: ServiceRole) -> [(role: ListenerRole, host: String, port: Int)] {
        switch role {
        case .gateway:
            var listeners = [(ListenerRole.gatewayPublic, gateway.host, gateway.port)]
            if let adminHost = gateway.adminHost { listeners.append((.gatewayAdmin, adminHost, gateway.adminPort)) }
            return listeners
        case .worker:
            return [(.workerMetrics, worker.metricsHost, worker.metricsPort)]
        case .tool:
            return []
        }
    }

    /// The secrets a service holds, by configuration key: what an attacker who could read one
    /// would use, and what must therefore be strong once the service is reachable.
    public func secrets(of role: ServiceRole) -> [(key: String, value: Secret)] {
        var secrets: [(key: String, value: Secret)] = []
        if role == .gateway {
            secrets += [("gateway.cursor_key", gateway.cursorKey), ("gateway.impression_key", gateway.impressionKey)]
            if !gateway.previousCursorKey.isEmpty { secrets.append(("gateway.previous_cursor_key", gateway.previousCursorKey)) }
            if !gateway.previousImpressionKey.isEmpty { secrets.append(("gateway.previous_impression_key", gateway.previousImpressionKey)) }
            if console.enabled { secrets.append(("console.token", console.token)) }
            if identity.mode == .jwt, !identity.jwt.hs256Key.isEmpty { secrets.append(("identity.jwt.hs256_key", identity.jwt.hs256Key)) }
            if identity.mode == .proxy { secrets.append(("identity.proxy.secret", identity.proxy.secret)) }
        }
        secrets.append(("admin.token", admin.token))
        return secrets
    }

    /// Fails closed: resolves every host the service binds and, when any of them reaches
    /// beyond loopback, refuses to start unless every secret of the service is strong
    /// (``SecretStrength``) and no development-only setting is on (`identity.mode: query`).
    /// On loopback alone the development defaults of `make run` are allowed.
    ///
    /// The error names every offending key and the variables that set it, never a value.
    /// Returns the listeners, to be bound at the addresses that were checked.
    public func validateExposure(
        of role: ServiceRole, resolve: (String) throws(ConfigurationError) -> [String] = ListenAddress.resolve
    ) throws(ConfigurationError) -> [ResolvedListener] {
        var listeners: [ResolvedListener] = []
        for (listener, host, port) in self.listeners(of: role) {
            let addresses: [String]
            do {
                addresses = try resolve(host)
            } catch {
                throw ConfigurationError(message: "\(listener.key): \(error.message)")
            }
            listeners.append(
                ResolvedListener(
                    role: listener, host: host, address: addresses[0], port: port, isLoopback: addresses.allSatisfy(ListenAddress.isLoopback)))
        }
        let exposed = listeners.filter { !$0.isLoopback }
        guard !exposed.isEmpty else { return listeners }
        var reasons = SecretStrength.problems(secrets(of: role).map { ($0.key, $0.value.text) }).map { key, problem in
            "\(key) \(problem) (set \(Self.variable(key)) or \(Self.variable(key))_FILE)"
        }
        if role == .gateway, identity.mode == .query {
            reasons.append("identity.mode is query (anyone can name any user with user=); set identity.mode to jwt or proxy")
        }
        if role == .gateway, gateway.rateLimits.enabled, gateway.rateLimits.exemptLoopback {
            reasons.append("gateway.rate_limits.exempt_loopback is on (a local development setting); turn it off")
        }
        guard reasons.isEmpty else {
            let where_ = exposed.map { "\($0.key) \($0.host)" }.joined(separator: " and ")
            throw ConfigurationError(
                message: "refusing to start the \(role.rawValue): \(where_) is not loopback, so every secret must be strong: "
                    + reasons.joined(separator: "; "))
        }
        return listeners
    }

    /// `gateway.cursor_key` → `BRAID_GATEWAY_CURSOR_KEY`.
    static func variable(_ key: String) -> String {
        "BRAID_" + key.replacingOccurrences(of: ".", with: "_").uppercased()
    }
}
