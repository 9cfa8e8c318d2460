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
        let run = try PythonScript.run(script, [schema.path] + documents.map(\.path))
        guard run.status == 0, let result = try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any]
        else { throw Failure(description: "schema validation failed to run: \(run.stderr)") }
        var verdicts: [URL: String?] = [:]
        for document in documents {
            verdicts[document] = result[document.path] as? String
        }
        return verdicts
    }
}
