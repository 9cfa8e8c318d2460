import BraidContracts
import BraidCore
import BraidExperiments
import BraidKafka
import BraidObservability
import BraidPrecompute
import Foundation
import HTTPTypes
import Logging
import Metrics

/// `POST /v1/events` and `GET /v1/experiments/{id}`: verifies impression ids, checks that each
/// event is inside its id's window and comes from the id's user, resolves the team of each
/// click, publishes the events to `braid.events` for the workers to credit, and reads the
/// credit back.
public struct EventService: Sendable {
    public let codec: ImpressionCodec
    public let producer: KafkaProducer
    public let topic: String
    public let experiments: ExperimentStore
    /// How long a request waits for Kafka to acknowledge its events.
    public let publishTimeout: Duration
    /// How long after its issue an impression id's events are accepted
    /// (`gateway.impression_window_seconds`, at most ``ImpressionValidity/maxWindowSeconds``).
    public let windowSeconds: Int
    /// The sequential design each experiment's outcome is read with.
    public let designs: ExperimentDesigns
    /// The feeds as configured: a layout click must be on a component its variant shows.
    public let feeds: [String: FeedDefinition]
    /// Layout experiments by name, and their credit.
    public let layouts: [String: LayoutExperimentDesign]
    /// Their sequential designs, solved off the cooperative pool as the gateway starts.
    public let layoutSolver: LayoutDesignSolver
    let layoutStore: LayoutExperimentStore
    let logger: Logger

    public init(
        codec: ImpressionCodec, producer: KafkaProducer, topic: String, experiments: ExperimentStore, publishTimeout: Duration = .seconds(5),
        windowSeconds: Int = ImpressionValidity.defaultWindowSeconds, designs: ExperimentDesigns = .standard,
        feeds: [String: FeedDefinition] = [:], layouts: [String: LayoutExperimentDesign] = [:],
        logger: Logger = Logger(label: "braid.gateway.events")
    ) {
        self.designs = designs
        self.feeds = feeds
        self.layouts = layouts
        self.layoutSolver = LayoutDesignSolver(layouts.keys.sorted().compactMap { layouts[$0] })
        self.layoutStore = LayoutExperimentStore(sharing: experiments)
        precondition((1...ImpressionValidity.maxWindowSeconds).contains(windowSeconds), "the window must be shorter than the impression state's TTL")
        self.codec = codec
        self.producer = producer
        self.topic = topic
        self.experiments = experiments
        self.publishTimeout = publishTimeout
        self.windowSeconds = windowSeconds
        self.logger = logger
    }

    /// One event of a request body (`Event` in `Schemas/openapi.yaml`): `position` for a click
    /// on a page, `component` for a click on a component of a layout.
    public struct Event: Sendable, Decodable {
        public var type: ExperimentEvent.Kind
        public var impressionID: String
        public var position: Int?
        public var component: String?

        public init(type: ExperimentEvent.Kind, impressionID: String, position: Int? = nil, component: String? = nil) {
            self.type = type
            self.impressionID = impressionID
            self.position = position
            self.component = component
        }

        enum CodingKeys: String, CodingKey {
            case type, position, component
            case impressionID = "impression_id"
        }
    }

    public static let maxEvents = 100

    /// Why an event was refused: the metric's `reason`, and the error the batch gets.
    enum Rejection: String, CaseIterable {
        case malformed, forged, expired, fromTheFuture = "from_the_future", foreignUser = "foreign_user", outdated
        case invalidPosition = "invalid_position"
        /// A click on a layout without a component its variant shows.
        case invalidComponent = "invalid_component"

        /// Reasons counted on the experiment's outcome (its id verified, so its name is trusted).
        var countsOnExperiment: Bool { ExperimentStore.rejectionReasons.contains(rawValue) }
    }

    /// Validates every event first, then publishes them all and waits for Kafka. One refused
    /// event refuses the whole batch (a 4xx naming the first refused event's index), so a
    /// client never has to guess which were taken; every refused event of the batch is counted
    /// (`braid_gateway_events_rejected_total{reason}`, and on its experiment's outcome when its
    /// id verified). Duplicates are not refused: the workers count and ignore them.
    /// - Parameters:
    ///   - caller: the request's verified user, nil when anonymous. Ids issued to a verified
    ///     user are evidence only from that user; other ids only from anonymous callers.
    /// - Returns: the number of events accepted.
    public func accept(_ events: [Event], caller: String? = nil, now: Date = Date()) async throws(GatewayError) -> Int {
        guard (1...Self.maxEvents).contains(events.count) else {
            throw .badRequest("events must hold 1 to \(Self.maxEvents) events", code: "invalid_body")
        }
        var messages: [KafkaProducerMessage] = []
        var refusal: GatewayError?
        var rejected: [Rejection: Int] = [:]
        var rejectedByExperiment: [String: [Rejection: Int]] = [:]
        func refuse(_ reason: Rejection, _ error: GatewayError, experiment: String? = nil) {
            rejected[reason, default: 0] += 1
            if let experiment, reason.countsOnExperiment { rejectedByExperiment[experiment, default: [:]][reason, default: 0] += 1 }
            if refusal == nil { refusal = error }
        }
        for (index, event) in events.enumerated() {
            guard !event.type.isLayout else {
                refuse(.malformed, .badRequest("events[\(index)].type must be impression or click", code: "invalid_event"))
                continue
            }
            let token: ImpressionToken
            do {
                switch try codec.decodeAny(event.impressionID, now: now) {
                case .page(let page):
                    token = page
                case .layout(let layout):
                    switch layoutEvent(event, layout, caller: caller, now: now, index: index) {
                    case .success(let published):
                        messages.append(KafkaProducerMessage(topic: topic, key: Array(layout.id.utf8), value: Array(published.encoded())))
                    case .failure(let problem):
                        refuse(problem.reason, problem.error, experiment: layout.experiment)
                    }
                    continue
                }
            } catch {
                refuse(error == .badSignature ? .forged : .malformed, .badRequest("events[\(index)].impression_id: \(error)", code: "invalid_event"))
                continue
            }
            if let problem = check(token, caller: caller, now: now, index: index) {
                refuse(problem.0, problem.1, experiment: token.experiment)
                continue
            }
            // The team is resolved and the evidence marked here; events outside the credit
            // window are published too (nothing a client sent is lost) and not credited.
            guard let published = ExperimentEvent.make(event.type, token: token, position: event.position, receivedAt: now) else {
                refuse(.invalidPosition, .badRequest(
                    "events[\(index)]: a click needs the position of an item of its impression (\(token.positions))",
                    code: "invalid_event"))
                continue
            }
            // Keyed by impression: one impression's events stay in order on one partition.
            messages.append(KafkaProducerMessage(topic: topic, key: Array(token.id.utf8), value: Array(published.encoded())))
        }
        if let refusal {
            for (reason, count) in rejected {
                Counter(.gatewayEventsRejected, dimensions: [("reason", reason.rawValue)]).increment(by: count)
            }
            await countOnExperiments(rejectedByExperiment)
            throw refusal
        }
        do {
            try await Deadline.run(timeout: publishTimeout) { [producer, messages] in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for message in messages { group.addTask { _ = try await producer.sendAndAwait(message) } }
                    try await group.waitForAll()
                }
            }
        } catch {
            throw .unavailable("events could not be published to Kafka: \(error is DeadlineExceeded ? "no acknowledgement within \(publishTimeout)" : "\(error)")", code: "events_unavailable")
        }
        Counter(.gatewayEventsAccepted).increment(by: messages.count)
        return messages.count
    }

    struct Refusal: Error {
        var reason: Rejection
        var error: GatewayError
    }

    /// The event to publish for a verified layout id, or why it is refused: a click must name
    /// one of the components the layout's variant shows (`feeds` as configured now).
    func layoutEvent(_ event: Event, _ layout: LayoutImpression, caller: String?, now: Date, index: Int) -> Result<ExperimentEvent, Refusal> {
        if let problem = check(issuedAt: layout.issuedAt, userKey: layout.userKey, caller: caller, now: now, index: index) {
            return .failure(Refusal(reason: problem.0, error: problem.1))
        }
        guard event.type == .click else { return .success(.make(layout: layout, receivedAt: now)) }
        let shown = feeds[layout.feed]?.variants.first { $0.name == layout.variant }?.components ?? []
        guard let component = event.component, shown.contains(component) else {
            return .failure(Refusal(reason: .invalidComponent, error: .badRequest(
                "events[\(index)]: a click on a layout needs the component it was on, one of \(shown.joined(separator: ", "))",
                code: "invalid_event")))
        }
        return .success(.make(layout: layout, click: component, receivedAt: now))
    }

    /// Whether a verified id's event is evidence now, from this caller: nil, or why not.
    func check(_ token: ImpressionToken, caller: String?, now: Date, index: Int) -> (Rejection, GatewayError)? {
        guard let issuedAt = token.issuedAt else {
            return (.outdated, .badRequest(
                "events[\(index)].impression_id has format version \(token.formatVersion), which carries no issue time and is no longer accepted; load the page again",
                code: "impression_outdated"))
        }
        return check(issuedAt: issuedAt, userKey: token.userKey ?? UserKey.nobody, caller: caller, now: now, index: index)
    }

    /// Inside the id's window, and from the id's user: nil, or why not.
    func check(issuedAt: Int64, userKey key: UserKey, caller: String?, now: Date, index: Int) -> (Rejection, GatewayError)? {
        switch ImpressionValidity.check(issuedAt: issuedAt, now: Int64(now.timeIntervalSince1970), windowSeconds: windowSeconds) {
        // An id with an issue time is never outdated: that verdict is for ids without one (above).
        case .valid, .outdated: break
        case .expired:
            return (.expired, .badRequest(
                "events[\(index)].impression_id was issued more than \(windowSeconds) s ago; its events are no longer accepted",
                code: "impression_expired"))
        case .fromTheFuture:
            return (.fromTheFuture, .badRequest(
                "events[\(index)].impression_id was issued by a server whose clock is more than \(ImpressionValidity.clockSkewToleranceSeconds) s ahead of this one's",
                code: "impression_from_the_future"))
        }
        let bound = if let caller { codec.isKey(key, of: caller, now: now) } else { key.kind != .user }
        guard bound else {
            return (.foreignUser, GatewayError(
                .forbidden, code: "foreign_impression",
                caller == nil
                    ? "events[\(index)].impression_id was issued to a signed-in user: send its events with that user's credential"
                    : "events[\(index)].impression_id was issued to someone else: a signed-in user sends the events of the pages they were shown"))
        }
        return nil
    }

    /// Best effort: a Redis failure here must not turn a 4xx into a 5xx, so it is logged.
    private func countOnExperiments(_ counts: [String: [Rejection: Int]]) async {
        for (experiment, reasons) in counts {
            for (reason, count) in reasons {
                do {
                    try await experiments.countRejected(experiment: experiment, reason: reason.rawValue, count: count)
                } catch {
                    logger.warning("could not count rejected events on the experiment", metadata: ["experiment": "\(experiment)", "error": "\(error)"])
                }
            }
        }
    }

    /// A layout experiment's outcome; nil when `experiment` names none.
    public func layoutOutcome(of experiment: String) async throws(GatewayError) -> LayoutExperimentOutcome? {
        guard let design = layouts[experiment] else { return nil }
        await layoutSolver.solved()
        do {
            return try await layoutStore.outcome(of: design)
        } catch {
            throw .unavailable("experiment results are unavailable: \(error)", code: "redis_unavailable")
        }
    }

    public func outcome(of experiment: String) async throws(GatewayError) -> ExperimentOutcome {
        do {
            return try await designs.read(try await experiments.outcome(of: experiment), store: experiments)
        } catch {
            throw .unavailable("experiment results are unavailable: \(error)", code: "redis_unavailable")
        }
    }
}
