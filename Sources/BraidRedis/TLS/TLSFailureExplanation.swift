import Foundation

/// Turns what a failed connection showed into a ``RedisConnectionError`` a person can act
/// on: which of the TLS mistakes it is, and what to change. Pure: the connection code
/// observes (``Symptom``), this decides.
enum TLSFailureExplanation {
    /// What the connection saw when it failed.
    enum Symptom: Sendable, Equatable {
        /// The chain verified, but the certificate does not name the server (NIOSSL's check).
        case nameMismatch(certificate: CertificateSummary?)
        /// BoringSSL refused the chain; `certificate` is the server's leaf when a second,
        /// unverified handshake could fetch it.
        case certificateNotTrusted(certificate: CertificateSummary?)
        /// The server sent a TLS alert (BoringSSL's reason name, e.g. `TLSV1_ALERT_UNKNOWN_CA`).
        case alert(String)
        /// The first bytes the server sent, when they are not what the URL's protocol expects.
        case unexpectedBytes([UInt8])
        /// The server closed the connection before sending anything.
        case closedWithoutData
        /// The server sent nothing before the set-up's deadline. A TLS server answers a
        /// ClientHello at once; a plaintext Redis reads it as an unfinished inline command
        /// and waits for a newline that never comes.
        case silence(Duration)
    }

    struct Context: Sendable {
        var endpoint: RedisEndpoint
        /// nil: a plaintext (`redis://`) connection.
        var tls: RedisConfiguration.TLS?
        /// The name checked against the certificate.
        var verifiedName: String
        var trustedCAs: [CertificateSummary]
        var now: Date = Date()
    }

    /// The error for `symptom`, or nil when it is no TLS or protocol mix-up (the caller
    /// then reports a plain connection failure).
    static func explain(_ symptom: Symptom, _ context: Context) -> RedisConnectionError? {
        let server = "the server at \(context.endpoint)"
        guard let tls = context.tls else {
            switch symptom {
            case .unexpectedBytes(let bytes) where bytes.first.map(isTLSRecordType) == true:
                return RedisConnectionError(
                    tls: .tlsServer, "\(server) answered with TLS, not Redis's protocol: is this a TLS port? use rediss://")
            case .closedWithoutData:
                return RedisConnectionError(
                    tls: .tlsServer,
                    "\(server) closed the connection without answering: is this a TLS port? use rediss:// (or check the server's log)")
            case .silence:
                return nil
            default:
                return nil
            }
        }
        switch symptom {
        case .unexpectedBytes(let bytes):
            guard let first = bytes.first, !isTLSRecordType(first) else { return nil }
            let text = String(decoding: bytes.prefix(32), as: UTF8.self).filter { !$0.isNewline }
            return RedisConnectionError(
                tls: .notTLSServer,
                "\(server) does not speak TLS (it answered \"\(text)\"): is this a plaintext port? use redis://, or the server's tls-port")
        case .closedWithoutData:
            return RedisConnectionError(
                tls: .notTLSServer,
                "\(server) closed the connection during the TLS handshake: is this a plaintext port? use redis://, or the server's tls-port")
        case .silence(let waited):
            return RedisConnectionError(
                tls: .notTLSServer,
                "\(server) did not answer the TLS handshake within \(waited): is this a plaintext port? use redis://, or the server's tls-port")
        case .nameMismatch(let certificate):
            let names = certificate.map { " (it names \($0.names.isEmpty ? $0.subject : $0.names.joined(separator: ", ")))" } ?? ""
            return RedisConnectionError(
                tls: .nameMismatch,
                "the certificate of \(server) is not issued for '\(context.verifiedName)'\(names): connect by a name the certificate carries, set the TLS server name to one of them, or reissue the certificate"
            )
        case .certificateNotTrusted(let certificate):
            return untrusted(certificate, tls: tls, context)
        case .alert(let reason):
            return alert(reason, tls: tls, context)
        }
    }

    private static func untrusted(
        _ certificate: CertificateSummary?, tls: RedisConfiguration.TLS, _ context: Context
    ) -> RedisConnectionError {
        let server = "the server at \(context.endpoint)"
        let trustStore = tls.caFile.map { "the CA file \($0)" } ?? "the system's trusted CAs"
        guard let certificate else {
            return RedisConnectionError(
                tls: .untrustedCertificate,
                "the certificate of \(server) does not verify against \(trustStore): a wrong CA file, or a self-signed or expired server certificate"
            )
        }
        let now = Int(context.now.timeIntervalSince1970)
        if now > certificate.notValidAfter || now < certificate.notValidBefore {
            let expired = now > certificate.notValidAfter
            let date = Date(timeIntervalSince1970: TimeInterval(expired ? certificate.notValidAfter : certificate.notValidBefore))
            return RedisConnectionError(
                tls: .expiredCertificate,
                "the certificate of \(server) (\(certificate.subject)) \(expired ? "expired on" : "is not valid before") \(date): renew the server's certificate (or check this machine's clock)"
            )
        }
        if certificate.isSelfIssued {
            return RedisConnectionError(
                tls: .selfSignedCertificate,
                "\(server) presents a self-signed certificate (\(certificate.subject)) that is not in \(trustStore): give the server a certificate issued by your CA, or add this certificate to the CA file"
            )
        }
        let known = context.trustedCAs.map(\.subject)
        let held = tls.caFile == nil ? "" : " (it holds \(known.isEmpty ? "no CA" : known.joined(separator: "; ")))"
        let advice =
            known.contains(certificate.issuer)
            ? "a CA of that name is in the file but did not sign it: the file holds a different CA with the same name"
            : "point the CA file at the certificate of the CA that issued the server's certificate"
        return RedisConnectionError(
            tls: .untrustedCertificate,
            "the certificate of \(server) (\(certificate.subject)) is issued by \(certificate.issuer), which is not in \(trustStore)\(held): \(advice)"
        )
    }

    private static func alert(_ reason: String, tls: RedisConfiguration.TLS, _ context: Context) -> RedisConnectionError {
        let server = "the server at \(context.endpoint)"
        let hasCertificate = tls.certificateFile != nil
        if reason.contains("CERTIFICATE_REQUIRED") || (!hasCertificate && reason.contains("HANDSHAKE_FAILURE")) {
            return RedisConnectionError(
                tls: .clientCertificateRequired,
                "\(server) requires a client certificate (mutual TLS, tls-auth-clients): configure the TLS certificate and key files")
        }
        let refusals = ["UNKNOWN_CA", "BAD_CERTIFICATE", "CERTIFICATE_UNKNOWN", "ACCESS_DENIED", "DECRYPT_ERROR", "UNSUPPORTED_CERTIFICATE",
            "CERTIFICATE_EXPIRED", "CERTIFICATE_REVOKED", "HANDSHAKE_FAILURE"]
        if hasCertificate, refusals.contains(where: reason.contains) {
            return RedisConnectionError(
                tls: .clientCertificateRejected,
                "\(server) refused the client certificate \(tls.certificateFile ?? "") (\(reason)): it must be issued by a CA in the server's tls-ca-cert-file and be valid now"
            )
        }
        return RedisConnectionError(tls: .handshakeFailed, "the TLS handshake with \(server) failed: \(reason)")
    }

    /// TLS record content types: change_cipher_spec, alert, handshake, application_data.
    static func isTLSRecordType(_ byte: UInt8) -> Bool { (0x14...0x17).contains(byte) }

    /// The alert name in a BoringSSL error description, e.g. `TLSV1_ALERT_UNKNOWN_CA`.
    static func alertReason(in description: String) -> String? {
        guard let range = description.range(of: #"(SSLV3|TLSV1)_ALERT_[A-Z_]+"#, options: .regularExpression) else { return nil }
        return String(description[range])
    }
}
