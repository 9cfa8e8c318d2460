import DequeModule

/// Which items may run now when items of one lane must run one at a time, in arrival order,
/// and items of different lanes may run concurrently. Pure state, so ordering is unit-tested
/// without tasks (`LaneQueuesTests`); ``LaneDispatcher`` runs it.
///
/// A lane exists only while it has items (running or waiting): with one lane per message
/// key, keys come and go without the state growing.
struct LaneQueues<Lane: Hashable, Item> {
    /// Busy lanes; the first item of each is running or ready to run.
    private var lanes: [Lane: Deque<Item>] = [:]
    /// Lanes whose first item may start, oldest first.
    private var ready = Deque<Lane>()
    /// Items enqueued and not finished.
    private(set) var unfinished = 0

    /// Lanes with items.
    var laneCount: Int { lanes.count }
    var hasReady: Bool { !ready.isEmpty }

    /// Queues `item` behind the items of its lane; returns whether a lane became ready.
    @discardableResult
    mutating func enqueue(_ item: Item, lane: Lane) -> Bool {
        unfinished += 1
        if lanes[lane] != nil {
            lanes[lane]!.append(item)
            return false
        }
        lanes[lane] = [item]
        ready.append(lane)
        return true
    }

    /// The first item of the oldest ready lane, which is running from now until ``finish(_:)``.
    mutating func start() -> (lane: Lane, item: Item)? {
        guard let lane = ready.popFirst(), let item = lanes[lane]?.first else { return nil }
        return (lane, item)
    }

    /// The running item of `lane` finished: the lane's next item becomes ready, or the lane
    /// ends.
    mutating func finish(_ lane: Lane) {
        guard var items = lanes[lane], !items.isEmpty else {
            preconditionFailure("finish of a lane that is not running")
        }
        items.removeFirst()
        unfinished -= 1
        if items.isEmpty {
            lanes[lane] = nil
        } else {
            lanes[lane] = items
            ready.append(lane)
        }
    }
}
