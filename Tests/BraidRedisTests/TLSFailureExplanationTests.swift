@testable import BraidRedis
import Foundation
import Testing

@Suite("TLS failure explanations")
struct TLSFailureExplanationTests {
    let endpoint = RedisEndpoint(host: "127.0.0.1", port: 6380)
    let ca = CertificateSummary(subject: "O=Braid tests, CN=Braid Test CA", issuer: "O=Braid tests, CN=Braid Test CA", notValidBefore: 0, notValidAfter: 4_000_000_000, names: [])
    let now = Date(timeIntervalSince1970: 2_000_000_000)

    func context(tls: RedisConfiguration.TLS? = .init(caFile: "/etc/braid/ca.pem")) -> TLSFailureExplanation.Context {
        .init(endpoint: endpoint, tls: tls, verifiedName: "127.0.0.1", trustedCAs: [ca], now: now)
    }

    func server(issuer: String, notAfter: Int = 3_000_000_000, notBefore: Int = 1_000_000_000) -> CertificateSummary {
        CertificateSummary(subject: "CN=localhost", issuer: issuer, notValidBefore: notBefore, notValidAfter: notAfter, names: ["localhost", "127.0.0.1"])
    }

    @Test func aWrongCAFileNamesTheIssuerAndTheFile() throws {
        let error = try #require(TLSFailureExplanation.explain(.certificateNotTrusted(certificate: server(issuer: "O=Elsewhere, CN=Other CA")), context()))
        #expect(error.kind == .tls && error.tlsFailure == .untrustedCertificate)
        #expect(error.message.contains("issued by O=Elsewhere, CN=Other CA"))
        #expect(error.message.contains("/etc/braid/ca.pem"))
        #expect(error.message.contains("it holds O=Braid tests, CN=Braid Test CA"))
    }

    @Test func withoutACAFileItPointsAtTheSystemRoots() throws {
        let error = try #require(
            TLSFailureExplanation.explain(.certificateNotTrusted(certificate: server(issuer: "CN=Braid Test CA")), context(tls: .init())))
        #expect(error.tlsFailure == .untrustedCertificate)
        #expect(error.message.contains("the system's trusted CAs"))
    }

    @Test func selfSignedAndExpiredCertificatesAreNamedAsSuch() throws {
        let selfSigned = CertificateSummary(subject: "CN=localhost", issuer: "CN=localhost", notValidBefore: 0, notValidAfter: 3_000_000_000, names: [])
        #expect(TLSFailureExplanation.explain(.certificateNotTrusted(certificate: selfSigned), context())?.tlsFailure == .selfSignedCertificate)
        let expired = try #require(
            TLSFailureExplanation.explain(.certificateNotTrusted(certificate: server(issuer: "CN=Braid Test CA", notAfter: 1_500_000_000)), context()))
        #expect(expired.tlsFailure == .expiredCertificate)
        #expect(expired.message.contains("expired on"))
        let early = TLSFailureExplanation.explain(
            .certificateNotTrusted(certificate: server(issuer: "CN=Braid Test CA", notBefore: 2_500_000_000)), context())
        #expect(early?.tlsFailure == .expiredCertificate)
        // Without the certificate (the probe failed) it still says what to check.
        let unknown = TLSFailureExplanation.explain(.certificateNotTrusted(certificate: nil), context())
        #expect(unknown?.tlsFailure == .untrustedCertificate)
        #expect(unknown?.message.contains("wrong CA file") == true)
    }

    @Test func aNameMismatchListsTheCertificatesNames() throws {
        let error = try #require(TLSFailureExplanation.explain(.nameMismatch(certificate: server(issuer: "CN=Braid Test CA")), context()))
        #expect(error.tlsFailure == .nameMismatch)
        #expect(error.message.contains("it names localhost, 127.0.0.1"))
        #expect(error.message.contains("server name"))
    }

    @Test func portMixUps() throws {
        let plaintextAnswer = Array("-ERR Protocol error".utf8)
        let onTLSURL = try #require(TLSFailureExplanation.explain(.unexpectedBytes(plaintextAnswer), context()))
        #expect(onTLSURL.tlsFailure == .notTLSServer)
        #expect(onTLSURL.message.contains("use redis://"))
        #expect(TLSFailureExplanation.explain(.closedWithoutData, context())?.tlsFailure == .notTLSServer)
        // A plaintext Redis waits for the end of a ClientHello it reads as an inline command.
        let silent = TLSFailureExplanation.explain(.silence(.seconds(2)), context())
        #expect(silent?.tlsFailure == .notTLSServer)
        #expect(silent?.message.contains("did not answer the TLS handshake within 2.0 seconds") == true)
        // Silence on a plaintext connection is just a slow server, no mix-up.
        #expect(TLSFailureExplanation.explain(.silence(.seconds(2)), context(tls: nil)) == nil)
        // TLS bytes on a TLS connection are no mix-up.
        #expect(TLSFailureExplanation.explain(.unexpectedBytes([0x16, 0x03, 0x03]), context()) == nil)

        let tlsAnswer: [UInt8] = [0x15, 0x03, 0x01, 0x00, 0x02, 0x02, 0x46]
        let onPlainURL = try #require(TLSFailureExplanation.explain(.unexpectedBytes(tlsAnswer), context(tls: nil)))
        #expect(onPlainURL.tlsFailure == .tlsServer)
        #expect(onPlainURL.message.contains("is this a TLS port? use rediss://"))
        #expect(TLSFailureExplanation.explain(.closedWithoutData, context(tls: nil))?.tlsFailure == .tlsServer)
        // A RESP answer on a plaintext connection is no mix-up.
        #expect(TLSFailureExplanation.explain(.unexpectedBytes(Array("+PONG".utf8)), context(tls: nil)) == nil)
    }

    @Test func clientCertificateAlerts() {
        let without = context(tls: .init(caFile: "/ca.pem"))
        #expect(TLSFailureExplanation.explain(.alert("TLSV1_ALERT_CERTIFICATE_REQUIRED"), without)?.tlsFailure == .clientCertificateRequired)
        #expect(TLSFailureExplanation.explain(.alert("SSLV3_ALERT_HANDSHAKE_FAILURE"), without)?.tlsFailure == .clientCertificateRequired)
        let with = context(tls: .init(caFile: "/ca.pem", certificateFile: "/client.pem", keyFile: "/client.key"))
        let rejected = TLSFailureExplanation.explain(.alert("TLSV1_ALERT_UNKNOWN_CA"), with)
        #expect(rejected?.tlsFailure == .clientCertificateRejected)
        #expect(rejected?.message.contains("/client.pem") == true)
        #expect(TLSFailureExplanation.explain(.alert("SSLV3_ALERT_BAD_CERTIFICATE"), with)?.tlsFailure == .clientCertificateRejected)
        #expect(TLSFailureExplanation.explain(.alert("TLSV1_ALERT_PROTOCOL_VERSION"), with)?.tlsFailure == .handshakeFailed)
    }

    @Test func findsTheAlertInABoringSSLErrorDescription() {
        let text = "handshakeFailed(NIOSSL.BoringSSLError.sslError([Error: 268436496 error:10000410:SSL routines:OPENSSL_internal:SSLV3_ALERT_HANDSHAKE_FAILURE at …]))"
        #expect(TLSFailureExplanation.alertReason(in: text) == "SSLV3_ALERT_HANDSHAKE_FAILURE")
        #expect(TLSFailureExplanation.alertReason(in: "error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED") == nil)
    }
}
