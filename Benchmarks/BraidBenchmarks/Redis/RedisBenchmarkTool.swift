import BraidHarness

/// `redis-benchmark`, the redis group's baseline.
enum RedisBenchmarkTool {
    /// GETs per second as redis-benchmark prints it (`--csv`), e.g. `79936.05`: 50 clients,
    /// no pipelining, values of 3 bytes. `target` holds the connection flags
    /// (`-h`, `-p`, `--tls …`, `--cluster`).
    static func getsPerSecond(_ target: [String], requests: Int, name: String) async throws -> String {
        let tool = try Toolchain.find("redis-benchmark")
        let (status, output) = try await ChildProcess.run(
            tool, target + ["-t", "get", "-c", "50", "-n", "\(requests)", "-d", "3", "--csv", "-q"], timeout: .seconds(3_600))
        guard status == 0, let figure = getFigure(csv: output) else {
            throw BenchmarkError("redis-benchmark printed no GET figure for \(name): \(output.suffix(1_000))")
        }
        return figure
    }

    /// The second field of the `"GET"` row of redis-benchmark's CSV
    /// (`"GET","79936.05","0.331",…`).
    static func getFigure(csv: String) -> String? {
        for line in csv.split(whereSeparator: \.isNewline) where line.contains("\"GET\"") {
            let fields = line.split(separator: "\"", omittingEmptySubsequences: false)
            if fields.count > 3, !fields[3].isEmpty { return String(fields[3]) }
        }
        return nil
    }

    /// The figure as the group prints it: its integer part.
    static func integerPart(_ figure: String) -> String {
        guard let dot = figure.lastIndex(of: ".") else { return figure }
        return String(figure[..<dot])
    }
}
