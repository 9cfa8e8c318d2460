import BraidHarness
import Testing
import Foundation

/// How `braid-dev docs` reads a guide: which blocks it runs, which it lists, and that a shell
/// block that is neither fails it.
@Suite("Guides' shell blocks")
struct DocBlocksTests {
    static let guide = """
        # A guide

        ```sh
        curl -fsS 'http://127.0.0.1:8080/healthz'
        cursor=$(echo abc)
        ```

        Some text.

        > Not run by the tests: needs a Kubernetes cluster
        ```sh
        kubectl apply -f Deploy/kubernetes/
        ```

        ```yaml
        redis:
          url: redis://127.0.0.1:6379
        ```

        ```sh
        echo "$cursor"
        ```
        """

    @Test func runsShBlocksInOrderListsMarkedOnesAndIgnoresOtherLanguages() {
        let blocks = DocBlocks.parse(Self.guide, file: "docs/guide.md")
        #expect(blocks.runnable.map(\.line) == [3, 20])
        #expect(blocks.runnable.first?.text == "curl -fsS 'http://127.0.0.1:8080/healthz'\ncursor=$(echo abc)")
        #expect(blocks.notRun.map(\.notRunBecause) == ["needs a Kubernetes cluster"])
        #expect(blocks.unmarked.isEmpty)
        let script = blocks.script(rewriting: ["127.0.0.1:8080": "127.0.0.1:4711"])
        #expect(script.hasPrefix("set -euo pipefail\n"))
        #expect(script.contains("127.0.0.1:4711/healthz") && !script.contains("8080"))
        #expect(script.contains("::block docs/guide.md:20"))
        // One script: a variable of the first block is there in the last.
        #expect(script.range(of: "cursor=$(echo abc)")!.lowerBound < script.range(of: "echo \"$cursor\"")!.lowerBound)
    }

    @Test func aShellBlockNeitherRunNorMarkedIsAnError() {
        let blocks = DocBlocks.parse("```bash\nmake run\n```\n\n> Not run by the tests:\n```console\n$ ls\n```\n", file: "README.md")
        #expect(blocks.unmarked == ["README.md:1 (bash)", "README.md:6 (console, a marker without a reason)"])
        #expect(blocks.runnable.isEmpty && blocks.notRun.isEmpty)
    }
}
