/// Tests see the fixtures the developer tools share (servers, issuers, walkers) through this
/// module, beside the Testing-only pieces kept here (the tiers' traits, the validators).
@_exported import BraidDevSupport
