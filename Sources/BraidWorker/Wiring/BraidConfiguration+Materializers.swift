import BraidCore
import BraidRuntime
import BraidSources

extension BraidConfiguration {
    /// The secondary rankings workers materialize, with their profiles parsed.
    public func materializedRankings() throws(ConfigurationError) -> [String: RankingMaterializer.Ranking] {
        var result: [String: RankingMaterializer.Ranking] = [:]
        for (name, section) in rankings {
            guard let profile = RankingProfile(rawValue: section.profile) else {
                throw ConfigurationError(message: "rankings.\(name).profile must be one of \(RankingProfile.allCases.map(\.rawValue).joined(separator: ", ")), not '\(section.profile)'")
            }
            result[name] = RankingMaterializer.Ranking(
                profile: profile, size: section.size, ttlSeconds: section.ttlSeconds, graceSeconds: section.graceSeconds)
        }
        return result
    }
}

extension BraidConfiguration {
    /// The feeds workers materialize components of, with each component type's TTL.
    public func materializedFeeds() -> [String: ComponentMaterializer.Feed] {
        feeds.mapValues { feed in
            var ttls: [ComponentType: Int] = [:]
            for section in feed.components.values {
                // Validation has checked every type name; the longest TTL wins when a type repeats.
                guard let type = ComponentType(rawValue: section.type) else { continue }
                ttls[type] = max(ttls[type] ?? 0, section.ttlSeconds)
            }
            return ComponentMaterializer.Feed(ttlSecondsByType: ttls)
        }
    }
}
