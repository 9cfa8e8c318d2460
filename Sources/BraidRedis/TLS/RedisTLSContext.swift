import NIOCore
import NIOSSL

/// The TLS side of a client: one NIOSSL context built from ``RedisConfiguration/TLS`` (its
/// files read once, at start-up), and the per-connection handler it makes.
struct RedisTLSContext: Sendable {
    let settings: RedisConfiguration.TLS
    let context: NIOSSLContext
    /// The CAs of ``RedisConfiguration/TLS/caFile``, to explain a certificate that fails
    /// verification; empty when the system's roots are trusted.
    let trustedCAs: [CertificateSummary]

    /// Throws ``RedisConnectionError`` (``RedisConnectionError/TLSFailure/invalidConfiguration``)
    /// naming the file that cannot be used.
    init(_ settings: RedisConfiguration.TLS) throws(RedisConnectionError) {
        self.settings = settings
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = settings.verifyServerName ? .fullVerification : .noHostnameVerification
        var trusted: [CertificateSummary] = []
        if let caFile = settings.caFile {
            let certificates = try Self.load("CA file", caFile) { try NIOSSLCertificate.fromPEMFile(caFile) }
            guard !certificates.isEmpty else { throw Self.invalid("the CA file \(caFile) holds no PEM certificate") }
            configuration.trustRoots = .certificates(certificates)
            trusted = certificates.map(CertificateSummary.init)
        }
        switch (settings.certificateFile, settings.keyFile) {
        case (let certificateFile?, let keyFile?):
            let chain = try Self.load("client certificate file", certificateFile) { try NIOSSLCertificate.fromPEMFile(certificateFile) }
            guard !chain.isEmpty else { throw Self.invalid("the client certificate file \(certificateFile) holds no PEM certificate") }
            let key = try Self.load("client key file", keyFile) { try NIOSSLPrivateKey(file: keyFile, format: .pem) }
            configuration.certificateChain = chain.map { .certificate($0) }
            configuration.privateKey = .privateKey(key)
        case (nil, nil):
            break
        case (_?, nil):
            throw Self.invalid("a client certificate file is set but no key file; mutual TLS needs both")
        case (nil, _?):
            throw Self.invalid("a client key file is set but no certificate file; mutual TLS needs both")
        }
        if let serverName = settings.serverName, serverName.isEmpty {
            throw Self.invalid("the TLS server name is empty; leave it unset to use each node's host")
        }
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw Self.invalid("the TLS settings are not usable (does the key belong to the certificate?): \(error)")
        }
        trustedCAs = trusted
    }

    /// The handler that encrypts one connection to `host`: SNI and name verification use
    /// ``RedisConfiguration/TLS/serverName`` or `host`; an IP address gets no SNI and is
    /// checked against the certificate's IP addresses.
    func makeHandler(host: String) throws -> NIOSSLClientHandler {
        let name = settings.serverName ?? host
        return try NIOSSLClientHandler(context: context, serverHostname: Self.isIPAddress(name) ? nil : name)
    }

    /// The name the certificate must carry for `host`.
    func verifiedName(host: String) -> String { settings.serverName ?? host }

    static func isIPAddress(_ text: String) -> Bool {
        (try? SocketAddress(ipAddress: text, port: 0)) != nil
    }

    private static func load<T>(_ what: String, _ path: String, _ body: () throws -> T) throws(RedisConnectionError) -> T {
        do {
            return try body()
        } catch {
            throw invalid("cannot read the TLS \(what) \(path) as PEM: \(error)")
        }
    }

    private static func invalid(_ message: String) -> RedisConnectionError {
        RedisConnectionError(tls: .invalidConfiguration, message)
    }
}

/// What a certificate says about itself, enough to explain why it was not accepted.
struct CertificateSummary: Sendable, Hashable {
    var subject: String
    var issuer: String
    var notValidBefore: Int
    var notValidAfter: Int
    /// DNS names and IP addresses of the subject alternative names.
    var names: [String]

    var isSelfIssued: Bool { subject == issuer }

    init(subject: String, issuer: String, notValidBefore: Int, notValidAfter: Int, names: [String]) {
        self.subject = subject
        self.issuer = issuer
        self.notValidBefore = notValidBefore
        self.notValidAfter = notValidAfter
        self.names = names
    }

    init(_ certificate: NIOSSLCertificate) {
        subject = Self.render(certificate.subjectName)
        issuer = Self.render(certificate.issuerName)
        notValidBefore = Int(certificate.notValidBefore)
        notValidAfter = Int(certificate.notValidAfter)
        names = certificate._subjectAlternativeNames().compactMap { name in
            switch name.nameType {
            case .dnsName: String(decoding: name.contents, as: UTF8.self)
            case .ipAddress: Self.render(ipAddress: Array(name.contents))
            default: nil
            }
        }
    }

    private static func render(ipAddress bytes: [UInt8]) -> String? {
        switch bytes.count {
        case 4: return bytes.map(String.init).joined(separator: ".")
        case 16: return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
        default: return nil
        }
    }

    /// `CN=…, O=…`, the common name and organisation only: enough to tell CAs apart.
    private static func render(_ name: [SSLCertificateName]) -> String {
        let parts = name.compactMap { part -> String? in
            switch part.type {
            case .commonName: "CN=\(part.value)"
            case .organization: "O=\(part.value)"
            case .organizationalUnit: "OU=\(part.value)"
            default: nil
            }
        }
        return parts.isEmpty ? "(no name)" : parts.joined(separator: ", ")
    }
}
