import BraidConfig
import BraidSources
import BraidWiring
import Testing

@Suite("Search source factory")
struct SearchSourceFactoryTests {
    @Test func buildsTheConfiguredSource() {
        var section = BraidConfiguration.SearchSection()
        #expect(SearchSourceFactory.make(section) is SQLiteSearchSource)
        section.source = .elasticsearch
        #expect(SearchSourceFactory.make(section) is ElasticsearchSource)
        section.source = .http
        #expect(SearchSourceFactory.make(section) is HTTPRankingSource)
    }
}
