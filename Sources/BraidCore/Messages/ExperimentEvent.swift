import Foundation

/// An impression or click of a team-draft page, as the gateway publishes it to
/// `braid.events` (`Schemas/event.schema.json`) after verifying its impression id: the
/// team of a click is resolved already, so consumers need no key.
public struct ExperimentEvent: Sendable, Hashable, Codable {
    public static let schemaName = "braid.event/v1"

    public enum Kind: String, Sendable, Hashable, Codable {
        case impression
        case click
    }

    public var schema: String
    public var type: Kind
    public var experiment: String
    /// ``ImpressionToken/id``: the impression this event belongs to.
    public var impression: String
    /// Clicks only: the global position clicked and the team that showed it.
    public var position: Int?
    public var team: Team?
    public var receivedAt: Date

    public init(type: Kind, experiment: String, impression: String, position: Int? = nil, team: Team? = nil, receivedAt: Date = Date()) {
        self.schema = Self.schemaName
        self.type = type
        self.experiment = experiment
        self.impression = impression
        self.position = position
        self.team = team
        self.receivedAt = receivedAt
    }

    enum CodingKeys: String, CodingKey {
        case schema, type, experiment, impression, position, team
        case receivedAt = "received_at"
    }

    public func encoded() -> Data {
        // Only strings, integers and a date: encoding cannot fail.
        (try? StoredValueCoding.encoder().encode(self)) ?? Data()
    }

    /// Decodes and checks what the schema requires.
    public static func decode(_ data: Data) throws(RequestValidationError) -> ExperimentEvent {
        let event: ExperimentEvent
        do {
            event = try StoredValueCoding.decoder().decode(ExperimentEvent.self, from: data)
        } catch {
            throw RequestValidationError("not a braid.event/v1 message: \(error)")
        }
        guard event.schema == schemaName else { throw RequestValidationError("schema must be \(schemaName), not '\(event.schema)'") }
        guard Names.isValid(event.experiment) else { throw RequestValidationError("experiment must be \(Names.rule)") }
        guard (1...32).contains(event.impression.utf8.count), event.impression.allSatisfy(\.isHexDigit) else {
            throw RequestValidationError("impression must be 1 to 32 hex digits")
        }
        if event.type == .click {
            guard let position = event.position, position >= 0, event.team != nil else {
                throw RequestValidationError("a click needs a position (>= 0) and a team")
            }
        }
        return event
    }
}
