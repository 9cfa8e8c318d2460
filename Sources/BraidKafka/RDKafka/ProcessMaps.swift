/// Reading `/proc/<pid>/maps` (proc(5)): which file a code address was mapped from.
enum ProcessMaps {
    /// The path of the file whose mapping contains `address`, or `nil` when the address is in no
    /// file-backed mapping. Lines are `start-end perms offset dev inode [path]`, addresses in hex;
    /// the path may contain spaces.
    static func file(containing address: UInt, in maps: String) -> String? {
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6,
                  let dash = fields[0].firstIndex(of: "-"),
                  let start = UInt(fields[0][..<dash], radix: 16),
                  let end = UInt(fields[0][fields[0].index(after: dash)...], radix: 16),
                  start <= address, address < end
            else { continue }
            let path = fields[5].drop(while: { $0 == " " })
            return path.hasPrefix("/") ? String(path) : nil
        }
        return nil
    }
}
