import BraidConfig
import BraidCore
import BraidPrecompute

extension BraidConfiguration {
    /// The secondary rankings workers (and inline misses) materialize.
    public var materializedRankings: [String: RankingMaterializer.Ranking] {
        rankings.mapValues { section in
            RankingMaterializer.Ranking(
                profile: section.profile, size: section.size, ttlSeconds: Int(section.ttl.wholeSeconds),
                graceSeconds: Int(section.grace.wholeSeconds))
        }
    }

    /// The feeds workers materialize components of, with each component type's TTL and the
    /// feed's interleaved list (validation allows one per feed).
    public var materializedFeeds: [String: ComponentMaterializer.Feed] {
        feeds.mapValues { feed in
            var ttls: [ComponentType: Int] = [:]
            // The longest TTL wins when a type repeats.
            for component in feed.components.values { ttls[component.type] = max(ttls[component.type] ?? 0, component.ttlSeconds) }
            let interleaved = feed.components.values.first { $0.type == .interleavedRecipes }.flatMap { component in
                component.query.map { ComponentMaterializer.InterleavedList(ranking: component.ranking ?? interleaving.ranking, query: $0) }
            }
            return ComponentMaterializer.Feed(ttlSecondsByType: ttls, interleaved: interleaved)
        }
    }
}
