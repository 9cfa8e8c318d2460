import Foundation

/// The shell blocks of a Markdown guide, sorted by what `braid-dev docs` does with them.
///
/// - A fenced block tagged `sh` holds commands a reader is told to run on their own machine:
///   it is run, against a local stack, in the order of the file.
/// - A block the reader runs elsewhere (a cluster, a systemd host, a registry) says so on the
///   line right before its fence: `> Not run by the tests: <reason>`. It is listed, not run.
/// - Any other shell-like block (`bash`, `shell`, `zsh`, `console`) without that line is an
///   error: every command a guide shows is either run or says why not.
public struct DocBlocks: Sendable, Equatable {
    public struct Block: Sendable, Equatable {
        /// 1-based line of the opening fence.
        public var line: Int
        public var language: String
        public var text: String
        /// Why it is not run; nil for a block that is run.
        public var notRunBecause: String?
    }

    public var file: String
    public var runnable: [Block]
    public var notRun: [Block]
    /// Shell-like blocks neither run nor marked, as `file:line (language)`.
    public var unmarked: [String]

    public static let marker = "> Not run by the tests:"
    static let shellLike: Set<String> = ["sh", "bash", "shell", "zsh", "console"]

    public static func parse(_ markdown: String, file: String) -> DocBlocks {
        var result = DocBlocks(file: file, runnable: [], notRun: [], unmarked: [])
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var index = 0
        while index < lines.count {
            let line = lines[index]
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("```") else {
                index += 1
                continue
            }
            let fence = String(trimmed.prefix { $0 == "`" })
            let language = trimmed.dropFirst(fence.count).split(separator: " ").first.map { String($0).lowercased() } ?? ""
            var body: [String] = []
            var end = index + 1
            while end < lines.count, !lines[end].trimmingCharacters(in: .whitespaces).hasPrefix(fence) {
                body.append(lines[end])
                end += 1
            }
            if shellLike.contains(language) {
                let previous = index > 0 ? lines[index - 1].trimmingCharacters(in: .whitespaces) : ""
                let reason = previous.hasPrefix(marker) ? previous.dropFirst(marker.count).trimmingCharacters(in: .whitespaces) : nil
                let block = Block(line: index + 1, language: language, text: body.joined(separator: "\n"), notRunBecause: reason)
                if let reason, !reason.isEmpty {
                    result.notRun.append(block)
                } else if reason != nil {
                    result.unmarked.append("\(file):\(index + 1) (\(language), a marker without a reason)")
                } else if language == "sh" {
                    result.runnable.append(block)
                } else {
                    result.unmarked.append("\(file):\(index + 1) (\(language))")
                }
            }
            index = end + 1
        }
        return result
    }

    /// One bash script of the file's runnable blocks in order (a reader's terminal: a variable set
    /// in one block is there in the next), each announced on stderr so a failure names its block,
    /// and `addresses` rewritten (`127.0.0.1:8080` to the port of the stack under test).
    public func script(rewriting addresses: [String: String]) -> String {
        var lines = ["set -euo pipefail"]
        for block in runnable {
            var text = block.text
            for (from, to) in addresses { text = text.replacingOccurrences(of: from, with: to) }
            lines.append("echo \"::block \(file):\(block.line)\" >&2")
            lines.append(text)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
