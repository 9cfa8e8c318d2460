import BraidCore

/// How old the cached ranking's snapshot was when a page showed it, in the buckets the
/// experiment outcome reports credit by (`freshness` of `GET /v1/experiments/{id}`), so a team
/// can see whether B loses because it is stale.
///
/// The buckets follow the refresh ages rankings are configured with (15 minutes for `fresh`,
/// an hour for `featured` by default; a snapshot lives a day): under 15 minutes, 15 minutes to
/// an hour, 1 to 6 hours, 6 hours or more; `unknown` for impressions whose id carries no age
/// (ids of format version 3 and older).
public enum SnapshotAge: String, Sendable, Hashable, CaseIterable, Codable {
    case under15Minutes = "under_15m"
    case under1Hour = "15m_to_1h"
    case under6Hours = "1h_to_6h"
    case older = "6h_or_more"
    case unknown

    /// Lower and upper bound of the bucket in seconds (upper nil: open); nil for `unknown`.
    public var seconds: (from: Int, to: Int?)? {
        switch self {
        case .under15Minutes: (0, 900)
        case .under1Hour: (900, 3_600)
        case .under6Hours: (3_600, 21_600)
        case .older: (21_600, nil)
        case .unknown: nil
        }
    }

    /// The bucket of an age in seconds (negative ages, from clocks that disagree, count as 0).
    public init(seconds: Int?) {
        guard let seconds else {
            self = .unknown
            return
        }
        switch seconds {
        case ..<900: self = .under15Minutes
        case ..<3_600: self = .under1Hour
        case ..<21_600: self = .under6Hours
        default: self = .older
        }
    }
}
