import BraidConfig
import BraidCore
import Foundation
import Testing

/// `interleaving.sequential` and an arm's `sequential`: defaults, environment overrides, the
/// file's per-arm settings, and the ranges `validate()` refuses.
@Suite("sequential design in the configuration")
struct SequentialConfigurationTests {
    @Test func defaultsAndEnvironmentOverrides() throws {
        let defaults = try ConfigurationLoader.load(file: nil, environment: [:])
        #expect(defaults.interleaving.sequential == BraidConfiguration.SequentialSection())
        #expect(defaults.interleaving.sequential.margin == 0.1 && defaults.interleaving.sequential.power == 0.8)
        #expect(defaults.interleaving.sequential.lookEvery == 100 && defaults.interleaving.sequential.maxSessions == 0)
        try defaults.validate()
        let set = try ConfigurationLoader.load(file: nil, environment: [
            "BRAID_INTERLEAVING_SEQUENTIAL_MARGIN": "0.25", "BRAID_INTERLEAVING_SEQUENTIAL_POWER": "0.9",
            "BRAID_INTERLEAVING_SEQUENTIAL_LOOK_EVERY": "50", "BRAID_INTERLEAVING_SEQUENTIAL_MAX_SESSIONS": "4000",
        ])
        #expect(set.interleaving.sequential.margin == 0.25 && set.interleaving.sequential.power == 0.9)
        #expect(set.interleaving.sequential.lookEvery == 50 && set.interleaving.sequential.maxSessions == 4000)
        try set.validate()
    }

    @Test func anArmsOwnSettingsReplaceTheSections() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sequential-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        try """
            interleaving:
              sequential: {look_every: 40}
              arms:
                - {name: control, weight: 50}
                - {name: draft, weight: 50, mode: team_draft, sequential: {margin: 0.3, max_sessions: 900}}
            """.write(to: file, atomically: true, encoding: .utf8)
        let configuration = try ConfigurationLoader.load(file: file.path, environment: [:])
        try configuration.validate()
        let arm = try #require(configuration.interleaving.arms.first { $0.name == "draft" })
        let own = try #require(arm.sequential).applied(to: configuration.interleaving.sequential)
        #expect(own.margin == 0.3 && own.lookEvery == 40 && own.maxSessions == 900 && own.power == 0.8)
        #expect(configuration.interleaving.arms.first { $0.name == "control" }?.sequential == nil)
    }

    @Test(arguments: [
        ("BRAID_INTERLEAVING_SEQUENTIAL_MARGIN", "0", "interleaving.sequential.margin must be"),
        ("BRAID_INTERLEAVING_SEQUENTIAL_MARGIN", "1.5", "interleaving.sequential.margin must be"),
        ("BRAID_INTERLEAVING_SEQUENTIAL_POWER", "0.5", "interleaving.sequential.power must be"),
        ("BRAID_INTERLEAVING_SEQUENTIAL_LOOK_EVERY", "0", "interleaving.sequential.look_every must be"),
        ("BRAID_INTERLEAVING_SEQUENTIAL_MAX_SESSIONS", "-1", "interleaving.sequential.max_sessions must be"),
    ])
    func outOfRangeIsRefusedNamingTheKey(variable: String, value: String, message: String) throws {
        let configuration = try ConfigurationLoader.load(file: nil, environment: [variable: value])
        let error = #expect(throws: ConfigurationError.self) { try configuration.validate() }
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
    }

    @Test func anArmsOutOfRangeSettingIsRefusedNamingTheArm() throws {
        var configuration = BraidConfiguration()
        configuration.interleaving.arms = [
            .init(name: "draft", weight: 100, mode: .teamDraft, sequential: .init(power: 1.2))
        ]
        let error = #expect(throws: ConfigurationError.self) { try configuration.validate() }
        #expect(error?.message.hasPrefix("interleaving.arms.draft.sequential.power must be") == true, "\(error?.message ?? "")")
    }
}
