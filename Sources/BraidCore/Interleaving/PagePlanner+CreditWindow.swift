extension PagePlanner {
    /// Global positions whose clicks are evidence in team-draft mode: the full rounds (one A
    /// and one B pick each) from `start` on. Round r is full while B has a document left
    /// (r < m) and A has one (start + r < T), so the window is `start ..< start + 2R` with
    /// R = min(m, T − start). Slots before `start` (A only), after B's m documents (A only)
    /// and after A ran out (B only) compare nothing: crediting them would hand one team wins
    /// for merely holding the top or the tail of the list. Empty in pattern mode, whose pages
    /// are not experiments.
    public var creditWindow: Range<Int> {
        let start = configuration.start
        guard configuration.mode == .teamDraft else { return start..<start }
        let liveRounds = aTotal.map { max(0, $0 - start) } ?? Int.max
        return start..<(start + 2 * min(placed, liveRounds))
    }
}
