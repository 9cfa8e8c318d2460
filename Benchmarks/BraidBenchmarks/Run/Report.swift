import Foundation

/// The lines a benchmark prints on stdout: `FIGURE <name> <value>`, `RATIO <name> <value>`
/// and the headers around them. Each line is written at once, so the order with the
/// harness's messages on stderr stays the order in which things happened.
public enum Report {
    public static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    public static func figure(_ name: String, _ value: String) {
        line("FIGURE \(name) \(value)")
    }

    public static func figure(_ name: String, _ value: Int) {
        figure(name, String(value))
    }

    public static func ratio(_ name: String, _ value: String) {
        line("RATIO \(name) \(value)")
    }
}

/// Number formats of the printed figures, fixed so that every run prints a value with the
/// same digits.
public enum Format {
    /// `%.Nf` (Python's `f"{x:.Nf}"` and awk's `printf` print the same digits).
    public static func fixed(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }

    /// Python's `round(x)`: to the nearest integer, ties to even.
    public static func pythonRound(_ value: Double) -> Int {
        Int(value.rounded(.toNearestOrEven))
    }

    /// Seconds of a duration as a floating-point number.
    public static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
