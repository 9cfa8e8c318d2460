/// The gateway group's wrk results by measurement name, and the means and ratios it prints
/// from them: means of the kept (rounded) figures, printed to 0.001; ratios of those printed
/// means; and ratios round by round, of which the group's RATIO lines print the median.
struct GatewayResults {
    private var rows: [(name: String, result: WrkResult)] = []

    mutating func append(_ name: String, _ result: WrkResult) {
        rows.append((name, result))
    }

    /// Requests served over every run of `name`.
    func requests(_ name: String) -> Int {
        rows.filter { $0.name == name }.reduce(0) { $0 + $1.result.requests }
    }

    /// `%.3f` of the mean of a figure over the runs of `name`.
    func mean(_ name: String, _ figure: KeyPath<WrkResult, String>) -> String {
        Format.fixed(Statistics.mean(values(name, figure)), 3)
    }

    /// `%.3f` of the median over rounds of a ÷ b, the k-th run of `a` against the k-th of `b`:
    /// the two run back to back in each round, so what drifts between rounds cancels, and one
    /// round that the shared machine disturbed moves the median little (a 10 % swing in one
    /// round of six moved the ratio of the means by 1.7 %, as much as a target's margin).
    func pairedRatio(_ a: String, _ b: String, _ figure: KeyPath<WrkResult, String>) -> String {
        let (numerators, denominators) = (values(a, figure), values(b, figure))
        precondition(numerators.count == denominators.count, "\(a) and \(b) ran in different numbers of rounds")
        return Format.fixed(Statistics.median(zip(numerators, denominators).map { $0 / $1 }), 3)
    }

    /// A figure of each run of `name`, in the order they ran.
    private func values(_ name: String, _ figure: KeyPath<WrkResult, String>) -> [Double] {
        rows.filter { $0.name == name }.map { Double($0.result[keyPath: figure]) ?? .nan }
    }

    /// `%.3f` of mean(a) ÷ mean(b), each mean as printed.
    func ratio(_ a: String, _ b: String, _ figure: KeyPath<WrkResult, String>) -> String {
        Format.fixed((Double(mean(a, figure)) ?? .nan) / (Double(mean(b, figure)) ?? .nan), 3)
    }
}
