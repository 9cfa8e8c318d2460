import BraidConfig
import BraidCore
import BraidSources
import BraidWiring
import BraidWorker
import Testing

@Suite("Search source factory")
struct SearchSourceFactoryTests {
    @Test func buildsTheConfiguredSource() {
        var section = BraidConfiguration.SearchSection()
        section.xapian.indexPath = "/srv/index"
        let xapian = SearchSourceFactory.make(section) as? XapianSearchSource
        #expect(xapian?.corpusPath == section.sqlite.path && xapian?.indexPath == "/srv/index")
        section.source = .sqlite
        #expect(SearchSourceFactory.make(section) is SQLiteSearchSource)
        section.source = .elasticsearch
        #expect(SearchSourceFactory.make(section) is ElasticsearchSource)
        section.source = .http
        #expect(SearchSourceFactory.make(section) is HTTPRankingSource)
    }
}

@Suite("Worker configuration")
struct WorkerConfigurationTests {
    @Test func theWorkerSectionBecomesTheWorkersSettings() throws {
        var configuration = BraidConfiguration()
        var settings = configuration.workerConfiguration
        #expect(settings.ordering == .key)
        #expect(settings.concurrency == 8 && settings.readAhead == 1_000)
        #expect(settings.pauseAfterFailures == 3)
        #expect(settings.probe.delay(beforeRetry: 1) == .milliseconds(500))
        #expect(settings.retry.delay(afterAttempt: 1) == .milliseconds(200))

        configuration.worker.ordering = .partition
        configuration.worker.concurrency = 16
        configuration.worker.pauseAfterFailures = 0
        configuration.worker.probeBackoff = .milliseconds(100)
        configuration.worker.probeMaxBackoff = .milliseconds(300)
        settings = configuration.workerConfiguration
        #expect(settings.ordering == .partition)
        #expect(settings.concurrency == 16)
        #expect(settings.pauseAfterFailures == 0)
        #expect((1...4).map { settings.probe.delay(beforeRetry: $0) } == [.milliseconds(100), .milliseconds(200), .milliseconds(300), .milliseconds(300)])
    }
}
