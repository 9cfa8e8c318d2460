/// What `make run` sets for its services on top of the stack's addresses.
///
/// Its only caller is the person running it, on this machine: loopback callers go unlimited
/// (`gateway.rate_limits.exempt_loopback`), so walking pages as fast as a script can never
/// meets a 429. When the gateway is asked to listen beyond loopback (`BRAID_GATEWAY_HOST`), the
/// limits of the defaults apply, as everywhere else.
public enum RunSettings {
    public static func services(gatewayHost: String?) -> [String: String] {
        guard Self.isLoopback(gatewayHost ?? "127.0.0.1") else { return [:] }
        return ["BRAID_GATEWAY_RATE_LIMITS_EXEMPT_LOOPBACK": "true"]
    }

    /// `127.x.x.x`, `::1` and `localhost`: what the gateway's own exposure check counts as
    /// loopback for the names a person types (it resolves other names, and refuses the
    /// exemption beyond loopback).
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
