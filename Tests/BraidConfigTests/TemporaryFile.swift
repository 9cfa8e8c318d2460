import Foundation

/// Writes `contents` to a new file in the temporary directory and returns its path: a
/// configuration file or a mounted secret, as a process would be given one.
func temporaryFile(_ contents: String, extension fileExtension: String = "yaml") throws -> String {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("braid-\(UUID().uuidString)").appendingPathExtension(fileExtension).path
    try contents.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}
