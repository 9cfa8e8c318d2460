import Foundation

/// Certificates for TLS tests and benchmarks, made with openssl (EC P-256 keys: fast):
///
/// - `ca.crt`/`.key`: the CA the test servers and clients trust;
/// - `server.crt`/`.key`: issued by it for localhost and 127.0.0.1;
/// - `server-dns.crt`/`.key`: issued by it for the name localhost only (no IP address);
/// - `client.crt`/`.key`: a client certificate issued by it (mutual TLS);
/// - `other-ca.crt`: an unrelated CA (a wrong CA file);
/// - `other-client.crt`/`.key`: a client certificate of that other CA (refused by the servers);
/// - `selfsigned.crt`/`.key`: a self-signed server certificate for localhost and 127.0.0.1.
public struct TLSMaterial: Sendable {
    public let directory: URL

    /// The path of one of the files above.
    public func file(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Makes the files in `directory` (kept if they are already there).
    public static func make(in directory: URL) async throws(HarnessError) -> TLSMaterial {
        let material = TLSMaterial(directory: directory)
        if FileManager.default.fileExists(atPath: material.file("selfsigned.crt")) { return material }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .failed("cannot create \(directory.path): \(error)")
        }
        let openssl = try Toolchain.find("openssl")
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let san = "subjectAltName=DNS:localhost,IP:127.0.0.1"
        let f = material.file
        func selfSigned(_ name: String, subject: String, extensions: [String] = []) async throws(HarnessError) {
            try await ChildProcess.check(
                openssl, ["req", "-x509"] + ec + ["-keyout", f("\(name).key"), "-out", f("\(name).crt"), "-days", "7", "-subj", subject] + extensions)
        }
        func issue(_ name: String, by ca: String, subject: String, extensions: String) async throws(HarnessError) {
            do {
                try extensions.write(toFile: f("\(name).ext"), atomically: true, encoding: .utf8)
            } catch {
                throw .failed("cannot write \(f("\(name).ext")): \(error)")
            }
            try await ChildProcess.check(openssl, ["req"] + ec + ["-keyout", f("\(name).key"), "-out", f("\(name).csr"), "-subj", subject])
            try await ChildProcess.check(openssl, [
                "x509", "-req", "-in", f("\(name).csr"), "-CA", f("\(ca).crt"), "-CAkey", f("\(ca).key"), "-CAcreateserial",
                "-out", f("\(name).crt"), "-days", "7", "-extfile", f("\(name).ext"),
            ])
            try? FileManager.default.removeItem(atPath: f("\(name).csr"))
            try? FileManager.default.removeItem(atPath: f("\(name).ext"))
        }
        try await selfSigned("ca", subject: "/O=Braid tests/CN=Braid Test CA")
        try await selfSigned("other-ca", subject: "/O=Elsewhere/CN=Other CA")
        try await issue("server", by: "ca", subject: "/CN=localhost", extensions: "\(san)\nextendedKeyUsage=serverAuth\n")
        try await issue("server-dns", by: "ca", subject: "/CN=localhost", extensions: "subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n")
        try await issue("client", by: "ca", subject: "/CN=braid-client", extensions: "extendedKeyUsage=clientAuth\n")
        try await issue("other-client", by: "other-ca", subject: "/CN=braid-client", extensions: "extendedKeyUsage=clientAuth\n")
        // Last: its presence says the folder is complete.
        try await selfSigned("selfsigned", subject: "/CN=localhost", extensions: ["-addext", san])
        return material
    }
}
