import Foundation

/// The instructions of a Containerfile (Dockerfile syntax), per build stage: continuation lines
/// joined, comments dropped, `${ARG}` in FROM resolved from the ARG defaults before the first
/// stage. Enough to compare Deploy/container/Containerfile with the manifests; no engine needed.
struct Containerfile {
    struct Instruction {
        let keyword: String
        let arguments: String

        /// The exec form (`["a", "b"]`) as a list, or nil for the shell form.
        var execForm: [String]? {
            guard arguments.hasPrefix("["), let data = arguments.data(using: .utf8) else { return nil }
            return (try? JSONSerialization.jsonObject(with: data)) as? [String]
        }
    }

    struct Stage {
        let image: String
        let name: String?
        var instructions: [Instruction] = []

        func all(_ keyword: String) -> [Instruction] { instructions.filter { $0.keyword == keyword } }
        func last(_ keyword: String) -> Instruction? { all(keyword).last }
    }

    let text: String
    let stages: [Stage]

    init(path: String) throws {
        text = try String(contentsOfFile: path, encoding: .utf8)
        var logical: [String] = []
        var pending = ""
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") || (line.isEmpty && pending.isEmpty) { continue }
            if line.hasSuffix("\\") {
                pending += String(line.dropLast()) + " "
            } else {
                logical.append(pending + line)
                pending = ""
            }
        }
        var arguments: [String: String] = [:]
        var stages: [Stage] = []
        for line in logical where !line.isEmpty {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            let keyword = parts[0].uppercased()
            let rest = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            if keyword == "ARG", stages.isEmpty {
                let pair = rest.split(separator: "=", maxSplits: 1).map(String.init)
                if pair.count == 2 { arguments[pair[0]] = pair[1] }
            } else if keyword == "FROM" {
                let words = rest.split(separator: " ").map(String.init)
                var image = words.first ?? ""
                for (name, value) in arguments { image = image.replacingOccurrences(of: "${\(name)}", with: value) }
                let name = words.count == 3 && words[1].uppercased() == "AS" ? words[2] : nil
                stages.append(Stage(image: image, name: name))
            } else if !stages.isEmpty {
                stages[stages.count - 1].instructions.append(Instruction(keyword: keyword, arguments: rest))
            }
        }
        self.stages = stages
    }

    /// The stage the image is made of.
    var final: Stage? { stages.last }
}
