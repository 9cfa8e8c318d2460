import Foundation
import BraidHarness

/// The `machine:` line: cores, memory and kernel, from `nproc`, `free -g` and `uname -sr`.
enum Machine {
    static func describe() async throws -> String {
        let cores = try await ChildProcess.check(try Toolchain.find("nproc"), []).trimmingCharacters(in: .whitespacesAndNewlines)
        let free = try await ChildProcess.check(try Toolchain.find("free"), ["-g"])
        let kernel = try await ChildProcess.check(try Toolchain.find("uname"), ["-sr"]).trimmingCharacters(in: .whitespacesAndNewlines)
        return "machine: \(cores) cores, \(memory(fromFree: free)) GiB, \(kernel)"
    }

    /// The total of the `Mem:` row of `free -g`.
    static func memory(fromFree output: String) -> String {
        for line in output.split(separator: "\n") {
            let fields = line.split(whereSeparator: \.isWhitespace)
            if fields.first == "Mem:", fields.count > 1 { return String(fields[1]) }
        }
        return ""
    }
}
