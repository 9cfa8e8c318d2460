import Foundation

/// Validates JSON documents against a JSON Schema with the reference Python implementation
/// (`jsonschema`, installed in the project virtualenv), so tests check our Swift decoders
/// against the schema files themselves rather than against a second Swift reading of them.
public enum JSONSchemaValidator {
    public struct Failure: Error, CustomStringConvertible { public let description: String }

    /// Returns, for each document, nil when it is valid or the validator's first error message.
    public static func validate(_ documents: [URL], against schema: URL) throws -> [URL: String?] {
        let script = """
            import json, sys
            from jsonschema import Draft202012Validator
            schema = json.load(open(sys.argv[1]))
            Draft202012Validator.check_schema(schema)
            validator = Draft202012Validator(schema)
            out = {}
            for path in sys.argv[2:]:
                errors = sorted(validator.iter_errors(json.load(open(path))), key=lambda e: e.path)
                out[path] = errors[0].message if errors else None
            print(json.dumps(out))
            """
        let process = Process()
        process.executableURL = RepositoryPaths.python
        process.arguments = ["-c", script, schema.path] + documents.map(\.path)
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw Failure(description: "cannot run \(RepositoryPaths.python.path) (run Deploy/local/bootstrap.sh): \(error)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let result = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw Failure(description: "schema validation failed to run: \(errorText)") }
        var verdicts: [URL: String?] = [:]
        for document in documents {
            verdicts[document] = result[document.path] as? String
        }
        return verdicts
    }
}
