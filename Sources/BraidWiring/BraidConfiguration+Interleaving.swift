import BraidConfig
import BraidCore
import BraidGateway

extension BraidConfiguration {
    /// The interleaving arms of `interleaving` (one `default` arm without experiments), each
    /// field of an arm falling back to the section's.
    public func armSelector() throws(ConfigurationError) -> ArmSelector {
        let section = interleaving
        let armSections = section.arms.isEmpty ? [ArmSection(name: "default", weight: 100)] : section.arms
        var arms: [ArmSelector.WeightedArm] = []
        for armSection in armSections {
            let ranking = armSection.ranking ?? section.ranking
            let configuration: InterleavingConfiguration
            do {
                configuration = try InterleavingConfiguration(
                    start: armSection.start ?? section.start,
                    maxDocs: armSection.maxDocs ?? section.maxDocs,
                    pattern: InterleavingConfiguration.parsePattern(armSection.pattern ?? section.pattern ?? "AB"),
                    mode: armSection.mode ?? section.mode)
            } catch {
                throw ConfigurationError(message: "interleaving (arm \(armSection.name)): \(error)")
            }
            guard let rankingSection = rankings[ranking] else {
                throw ConfigurationError(message: "interleaving (arm \(armSection.name)): ranking '\(ranking)' is not under rankings")
            }
            arms.append(ArmSelector.WeightedArm(
                weight: armSection.weight,
                arm: InterleavingArm(
                    name: armSection.name, ranking: ranking, configuration: configuration, missPolicy: section.missPolicy,
                    refreshAfterSeconds: rankingSection.refreshAfterSeconds, enabled: section.enabled, snapshotSize: rankingSection.size,
                    multileave: armSection.multileave ?? [],
                    multileaveRefreshAfterSeconds: rankings.mapValues(\.refreshAfterSeconds))))
        }
        return ArmSelector(arms: arms, refreshAfterSeconds: rankings.mapValues(\.refreshAfterSeconds), snapshotSizes: rankings.mapValues(\.size))
    }
}
