import BraidConfig
import BraidCore
import BraidPrecompute

extension BraidConfiguration {
    /// The secondary rankings workers (and inline misses) materialize.
    public var materializedRankings: [String: RankingMaterializer.Ranking] {
        rankings.mapValues { section in
            RankingMaterializer.Ranking(
                profile: section.profile, size: section.size, ttlSeconds: section.ttlSeconds, graceSeconds: section.graceSeconds)
        }
    }

    /// The feeds workers materialize components of, with each component type's TTL.
    public var materializedFeeds: [String: ComponentMaterializer.Feed] {
        feeds.mapValues { feed in
            var ttls: [ComponentType: Int] = [:]
            // The longest TTL wins when a type repeats.
            for component in feed.components.values { ttls[component.type] = max(ttls[component.type] ?? 0, component.ttlSeconds) }
            return ComponentMaterializer.Feed(ttlSecondsByType: ttls)
        }
    }
}
