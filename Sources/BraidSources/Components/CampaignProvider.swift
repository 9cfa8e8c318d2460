import BraidCore
import Foundation

/// `banner` contents: the configured campaigns targeted at the scope's segment that are
/// active at the request's time, in configuration order. Each page says when it stops being
/// true (the next start or end of one of the segment's campaigns), so stored banners expire
/// exactly when a campaign starts or ends.
public struct CampaignProvider: ComponentProvider {
    public let campaigns: [Campaign]

    public init(campaigns: [Campaign]) {
        self.campaigns = campaigns
    }

    public func items(_ request: ComponentRequest) async throws -> ComponentPage {
        try request.validate()
        guard request.type == .banner else {
            throw ComponentProviderError(.badRequest, "\(request.type.rawValue) does not come from campaigns")
        }
        let segment = try request.required(request.scope.segment, "segment")
        let targeted = campaigns.filter { $0.segment == segment }
        let active = targeted.filter { $0.isActive(at: request.now) }
        let page = active.dropFirst(request.offset).prefix(request.limit)
        let next = request.offset + request.limit < active.count ? request.offset + request.limit : nil
        let boundaries = targeted.flatMap { [$0.startsAt, $0.endsAt] }.filter { $0 > request.now }
        return ComponentPage(items: page.map(Self.item), nextOffset: next, validUntil: boundaries.min())
    }

    static func item(_ campaign: Campaign) -> JSONValue {
        .object([
            "id": .string(campaign.id),
            "title": .string(campaign.title),
            "image_url": .string(campaign.imageUrl),
            "link_url": .string(campaign.linkUrl),
            "starts_at": .string(CampaignTime.format(campaign.startsAt)),
            "ends_at": .string(CampaignTime.format(campaign.endsAt)),
            "segment": .string(campaign.segment),
        ])
    }
}

/// The component provider of a deployment: banners from the configured campaigns, every
/// other type from the corpus.
public struct FeedComponentProvider: ComponentProvider {
    public let campaigns: CampaignProvider
    public let corpus: any ComponentProvider

    public init(campaigns: [Campaign], corpus: any ComponentProvider) {
        self.campaigns = CampaignProvider(campaigns: campaigns)
        self.corpus = corpus
    }

    public func items(_ request: ComponentRequest) async throws -> ComponentPage {
        request.type == .banner ? try await campaigns.items(request) : try await corpus.items(request)
    }
}
