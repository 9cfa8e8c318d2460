import BraidCore
@testable import BraidSources
import Testing

@Suite("Positions of placed documents in a ranking")
struct RankPositionsTests {
    /// Against the list itself: for every set of placed rows and every range of the list without
    /// them, the window holds exactly that range's rows once the placed ones are dropped.
    @Test func theWindowHoldsTheRangeOfTheRankingWithoutThePlacedDocuments() {
        var generator = SplitMix64(seed: 7, stream: 0, index: 0)
        for _ in 0..<2_000 {
            let length = Int(generator.next() % 60)
            let ranking = (0..<length).map { "d\($0)" }
            let placed = ranking.filter { _ in generator.next() % 3 == 0 }
            let positions = RankPositions(
                positions: Dictionary(uniqueKeysWithValues: placed.map { ($0, Int($0.dropFirst())!) }), matchGeneration: "g")
            let without = ranking.filter { !positions.contains($0) }
            let from = Int(generator.next() % UInt64(without.count + 3))
            let size = Int(generator.next() % 12)
            let window = positions.window(covering: from..<(from + size))
            let rows = ranking[min(window.lowerBound, length)..<min(window.upperBound, length)]
            let expected = without[min(from, without.count)..<min(from + size, without.count)]
            #expect(Array(rows.filter { !positions.contains($0) }) == Array(expected), "placed \(placed), range \(from)..<\(from + size)")
            // Nothing beyond what the range needs: a range inside the list ends the window on its last row.
            if size > 0, from + size <= without.count { #expect(ranking[window.upperBound - 1] == expected.last) }
        }
    }

    @Test func placedDocumentsAtAndBeforeARowShiftIt() {
        let positions = RankPositions(positions: ["a": 0, "b": 1, "c": 5], matchGeneration: "g")
        #expect(positions.window(covering: 0..<2) == 2..<4)
        #expect(positions.window(covering: 2..<4) == 4..<7)
        #expect(positions.window(covering: 3..<3) == 6..<6)
        #expect(RankPositions(positions: [:], matchGeneration: nil).window(covering: 10..<20) == 10..<20)
    }
}
