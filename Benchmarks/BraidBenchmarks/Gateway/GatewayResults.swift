/// The gateway group's wrk results by measurement name, and the means and ratios it prints
/// from them: means of the kept (rounded) figures, printed to 0.001, and ratios of those
/// printed means.
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
        Format.fixed(Statistics.mean(rows.filter { $0.name == name }.map { Double($0.result[keyPath: figure]) ?? .nan }), 3)
    }

    /// `%.3f` of mean(a) ÷ mean(b), each mean as printed.
    func ratio(_ a: String, _ b: String, _ figure: KeyPath<WrkResult, String>) -> String {
        Format.fixed((Double(mean(a, figure)) ?? .nan) / (Double(mean(b, figure)) ?? .nan), 3)
    }
}
