import Foundation

/// Draws ranks 0..<n with Zipf-like frequencies: rank r comes up in proportion to 1 / (r + 1)^s,
/// so the first few words of a list are common, the middle ones occasional and the last rare,
/// as words are in real catalogues. Pure and deterministic: the draw is a uniform number in
/// [0, 1) from the caller's generator.
struct ZipfTable: Sendable {
    /// Cumulative probabilities, the last one 1.
    private let cumulative: [Double]

    init(count: Int, exponent: Double) {
        precondition(count > 0, "a Zipf table needs at least one rank")
        var running = 0.0
        var sums: [Double] = []
        sums.reserveCapacity(count)
        for rank in 1...count {
            running += 1 / pow(Double(rank), exponent)
            sums.append(running)
        }
        cumulative = sums.map { $0 / running }
    }

    var count: Int { cumulative.count }

    /// The rank whose share of [0, 1) holds `unit`.
    func rank(_ unit: Double) -> Int {
        var low = 0
        var high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] > unit { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// Share of draws that land on `rank`.
    func probability(of rank: Int) -> Double {
        cumulative[rank] - (rank == 0 ? 0 : cumulative[rank - 1])
    }
}
