import CHiredis

/// The hiredis version Braid was compiled against; hiredis is used only as a RESP codec
/// (`redisReader*` and `redisFormatCommandArgv`), the I/O is SwiftNIO's.
public let hiredisVersion = "\(HIREDIS_MAJOR).\(HIREDIS_MINOR).\(HIREDIS_PATCH)"
