import BraidContracts
import BraidCore
import BraidSources

/// Fills a planned page with documents: pure, so the one place where positions meet
/// documents is tested without servers.
enum PageAssembler {
    /// The live total as far as this page can tell: a backend returning fewer hits than it
    /// asked for has run out, whatever total it reported, so the list ends right after them
    /// (instead of leaving holes in positions, or leaving out hits a count read a moment later
    /// no longer saw: the hits and the count are two reads, and a walk must show every hit it
    /// takes as shown).
    ///
    /// A page that starts a list (page 1, or `page=k` without a cursor) and receives nothing lies
    /// past the end: the list then ends where the backend says, not at the page's offset. A
    /// cursor's page keeps the positions its walk already showed, so its list ends at its offset.
    static func effectiveTotal(reported: Int, from: Int, requested: Int, received: Int, startsList: Bool = false) -> Int {
        if startsList, received == 0, requested > 0 { return min(from, max(0, reported)) }
        if received < requested { return from + received }
        // A page with no A slot asks for nothing: the reported total is all it learns.
        return requested == 0 ? reported : max(reported, from + received)
    }

    /// Items of `plan`. `hits` are A's documents from index `hitsFrom` on (nil: a document gone
    /// from a page served again, whose slot stays empty); `documents` are B's placed documents
    /// (the snapshot's first m).
    static func items(
        plan: PagePlan, hits: [SearchHit?], hitsFrom: Int, documents: [RankingSnapshot.Document]
    ) -> [SearchPage.Item] {
        plan.slots.compactMap { slot in
            switch slot.team {
            case .a:
                let index = slot.index - hitsFrom
                guard hits.indices.contains(index), let hit = hits[index] else { return nil }
                return SearchPage.Item(id: hit.id, position: slot.position, team: .a, source: .live, score: hit.score, fields: hit.fields)
            case .b:
                guard documents.indices.contains(slot.index) else { return nil }
                let document = documents[slot.index]
                return SearchPage.Item(
                    id: document.id, position: slot.position, team: .b, source: .cached, score: document.score, fields: document.fields)
            }
        }
    }
}
