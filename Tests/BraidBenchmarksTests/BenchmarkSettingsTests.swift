import Foundation
import Testing

@testable import BraidBenchmarks

@Suite("benchmark settings from the environment")
struct BenchmarkSettingsTests {
    @Test func defaultsAreDocumented() throws {
        let settings = try BenchmarkSettings(environment: [:])
        #expect(settings == BenchmarkSettings())
        #expect(settings.redisRequests == 200_000 && settings.kafkaMessages == 200_000 && settings.partitions == 6)
        #expect(settings.gatewaySeconds == 5 && settings.gatewayRounds == 6 && settings.gatewayColdRounds == 9)
        #expect(settings.workerRounds == 5 && settings.workerOrderRounds == 3)
        #expect(settings.evaluationSeed == "1" && settings.evaluationArguments.isEmpty)
    }

    @Test func variablesOverrideTheirSetting() throws {
        let settings = try BenchmarkSettings(environment: [
            "BRAID_BENCH_GATEWAY_SECONDS": "2", "BRAID_BENCH_GATEWAY_COLD_ROUNDS": "1", "BRAID_BENCH_REDIS_REQUESTS": "20000",
            "BRAID_PARTITIONS": "3", "BRAID_BENCH_EVALUATION_SEED": "7", "BRAID_BENCH_EVALUATION_ARGS": " --margin 0.2  --queries 5 ",
            "BRAID_BENCH_KAFKA_MESSAGES": "",
        ])
        #expect(settings.gatewaySeconds == 2 && settings.gatewayColdRounds == 1 && settings.redisRequests == 20_000)
        #expect(settings.partitions == 3 && settings.kafkaMessages == 200_000)
        #expect(settings.evaluationSeed == "7" && settings.evaluationArguments == ["--margin", "0.2", "--queries", "5"])
    }

    @Test func badValuesNameTheVariable() {
        #expect(throws: BenchmarkError.self) { try BenchmarkSettings(environment: ["BRAID_BENCH_GATEWAY_ROUNDS": "two"]) }
        #expect(throws: BenchmarkError.self) { try BenchmarkSettings(environment: ["BRAID_BENCH_GATEWAY_ROUNDS": "0"]) }
        #expect(throws: BenchmarkError.self) { try BenchmarkSettings(environment: ["BRAID_BENCH_REDIS_REQUESTS": "49"]) }
        let error = #expect(throws: BenchmarkError.self) { try BenchmarkSettings(environment: ["BRAID_BENCH_WORKER_ROUNDS": "-1"]) }
        #expect(error?.message.contains("BRAID_BENCH_WORKER_ROUNDS=-1") == true)
    }

    /// docs/benchmarks.md's settings table has a row for every variable, with its default.
    @Test func theSettingsTableOfTheDocsHasEveryVariableWithItsDefault() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/benchmarks.md"), encoding: .utf8)
        let defaults = BenchmarkSettings()
        for knob in BenchmarkSettings.knobs {
            #expect(text.contains("| `\(knob.name)` | `\(defaults[keyPath: knob.path])` |"), "docs/benchmarks.md: no row of \(knob.name) with its default")
        }
    }

    @Test func helpListsEveryVariableWithItsDefault() {
        for knob in BenchmarkSettings.knobs { #expect(BenchmarkSettings.help.contains(knob.name + " (")) }
        #expect(BenchmarkSettings.help.contains("BRAID_BENCH_GATEWAY_COLD_ROUNDS (9)"))
        #expect(BenchmarkSettings.help.contains("BRAID_BENCH_EVALUATION_ARGS"))
    }
}
