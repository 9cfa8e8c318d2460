import BraidConfig
import BraidCore
import BraidExperiments
import BraidGateway

extension BraidConfiguration {
    /// The interleaving arms of `interleaving` (one `default` arm without experiments), each
    /// field of an arm falling back to the section's.
    public func armSelector() throws(ConfigurationError) -> ArmSelector {
        let section = interleaving
        let refreshAfterSeconds = rankings.mapValues { Int($0.refreshAfter.wholeSeconds) }
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
                    refreshAfterSeconds: Int(rankingSection.refreshAfter.wholeSeconds), enabled: section.enabled, snapshotSize: rankingSection.size,
                    multileave: armSection.multileave ?? [],
                    multileaveRefreshAfterSeconds: refreshAfterSeconds)))
        }
        return ArmSelector(arms: arms, refreshAfterSeconds: refreshAfterSeconds, snapshotSizes: rankings.mapValues(\.size))
    }
}

extension BraidConfiguration {
    /// The sequential designs of `interleaving.sequential` and the arms' `sequential`, built and
    /// checked against their `max_sessions` (a ``ConfigurationError`` naming the key otherwise).
    public func experimentDesigns() throws(ConfigurationError) -> ExperimentDesigns {
        func settings(_ section: SequentialSection) -> ExperimentDesigns.Settings {
            ExperimentDesigns.Settings(margin: section.margin, power: section.power, lookEvery: section.lookEvery, maxSessions: section.maxSessions)
        }
        let base = interleaving.sequential
        var experiments: [String: ExperimentDesigns.Settings] = [:]
        for arm in interleaving.arms { if let own = arm.sequential { experiments[arm.name] = settings(own.applied(to: base)) } }
        do {
            return try ExperimentDesigns(defaults: settings(base), experiments: experiments)
        } catch {
            throw ConfigurationError(message: error.description)
        }
    }
}

extension BraidConfiguration {
    /// The designs of the feeds' layout experiments (`feeds.<name>.experiment`), by experiment
    /// name; a design that cannot be built is a ``ConfigurationError`` naming the key.
    public func layoutExperimentDesigns() throws(ConfigurationError) -> [String: LayoutExperimentDesign] {
        var designs: [String: LayoutExperimentDesign] = [:]
        for (feed, definition) in feeds.sorted(by: { $0.key < $1.key }) {
            guard let experiment = definition.experiment else { continue }
            do {
                designs[experiment.name] = try LayoutExperimentDesign(
                    experiment: experiment.name, feed: feed, variants: definition.variants.map { ($0.name, $0.weight) },
                    design: definition.experimentDesign(feed: feed), margin: experiment.margin, power: experiment.power,
                    lookEvery: experiment.lookEvery)
            } catch {
                throw ConfigurationError(message: error.description)
            }
        }
        return designs
    }
}
