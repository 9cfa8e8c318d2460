import Foundation

/// Validates HTTP response bodies against `Schemas/openapi.yaml` with the reference Python
/// implementation (`jsonschema` and PyYAML, installed in the project virtualenv with
/// schemathesis), so tests check real responses against the document itself.
///
/// OpenAPI 3.0 schemas are JSON Schema draft 4 plus a few keywords of their own; before
/// validating, `nullable: true` becomes a type union with `"null"` (and `null` joins an
/// `enum`), and `#/components/...` references resolve inside the document.
public enum OpenAPIValidator {
    public struct Failure: Error, CustomStringConvertible { public let description: String }

    /// Which schema of the document a body must conform to.
    public enum Target: Sendable, CustomStringConvertible {
        /// `#/components/schemas/<name>`.
        case component(String)
        /// The `application/json` schema of a documented response: `path` is the template as
        /// written under `paths` (e.g. `/v1/feeds/{feed}`), `method` lowercase or not. An
        /// undocumented status, or a response without a JSON body, is a validation error.
        case response(path: String, method: String, status: Int)

        public var description: String {
            switch self {
            case .component(let name): "#/components/schemas/\(name)"
            case .response(let path, let method, let status): "\(method.uppercased()) \(path) \(status)"
            }
        }
    }

    public static var document: URL { RepositoryPaths.schemas.appendingPathComponent("openapi.yaml") }

    /// Returns, for each body (in order), nil when it conforms to its target or the
    /// validator's messages (with the JSON path of each error) when it does not.
    public static func validate(_ bodies: [(body: Data, target: Target)], document: URL = Self.document) throws -> [String?] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openapi-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var manifest: [[String: Any]] = []
        for (index, entry) in bodies.enumerated() {
            let file = folder.appendingPathComponent("body-\(index)")
            try entry.body.write(to: file)
            switch entry.target {
            case .component(let name):
                manifest.append(["file": file.path, "component": name])
            case .response(let path, let method, let status):
                manifest.append(["file": file.path, "path": path, "method": method.lowercased(), "status": status])
            }
        }
        let manifestFile = folder.appendingPathComponent("manifest.json")
        try JSONSerialization.data(withJSONObject: manifest).write(to: manifestFile)

        let run = try PythonScript.run(script, [document.path, manifestFile.path])
        let data = run.stdout
        guard run.status == 0, let verdicts = try? JSONSerialization.jsonObject(with: data) as? [Any],
              verdicts.count == bodies.count
        else { throw Failure(description: "OpenAPI validation failed to run: \(run.stderr)\(String(decoding: data, as: UTF8.self))") }
        return verdicts.map { $0 as? String }
    }

    /// Validates one body; nil when it conforms.
    public static func validate(_ body: Data, against target: Target) throws -> String? {
        try validate([(body, target)])[0]
    }

    static let script = #"""
        import json, sys
        import yaml
        from jsonschema import Draft4Validator

        document = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
        manifest = json.load(open(sys.argv[2], encoding="utf-8"))

        def convert(node):
            """OpenAPI 3.0 schema keywords to JSON Schema (draft 4, which 3.0 extends)."""
            if isinstance(node, list):
                return [convert(item) for item in node]
            if not isinstance(node, dict):
                return node
            out = {key: convert(value) for key, value in node.items()}
            # A boolean only: under `properties`, "nullable" would be a property's name.
            nullable = isinstance(out.get("nullable"), bool) and out.pop("nullable")
            if nullable:
                if "$ref" in out:  # siblings of $ref are ignored: wrap it
                    out = {"anyOf": [{"$ref": out.pop("$ref")}, {"type": "null"}], **out}
                elif "type" in out:
                    types = out["type"] if isinstance(out["type"], list) else [out["type"]]
                    out["type"] = types + ([] if "null" in types else ["null"])
                elif any(key in out for key in ("anyOf", "oneOf", "allOf")):
                    out = {"anyOf": [out, {"type": "null"}]}
                # else: no type, so null is allowed already
                if "enum" in out and None not in out["enum"]:
                    out["enum"] = out["enum"] + [None]
            return out

        # Only schema-bearing parts are converted (an OpenAPI parameter named `type` or a
        # property called `nullable` must stay what it is).
        components = dict(document.get("components", {}))
        components["schemas"] = {name: convert(schema) for name, schema in components.get("schemas", {}).items()}
        for schema in components["schemas"].values():
            Draft4Validator.check_schema(schema)

        def escape(token):
            return str(token).replace("~", "~0").replace("/", "~1")

        def resolve(node):
            while isinstance(node, dict) and "$ref" in node:
                parts = node["$ref"].lstrip("#/").split("/")
                node = document
                for part in parts:
                    node = node[part.replace("~1", "/").replace("~0", "~")]
            return node

        def target_schema(entry):
            if "component" in entry:
                name = entry["component"]
                if name not in components["schemas"]:
                    raise LookupError("no schema #/components/schemas/%s" % name)
                return {"$ref": "#/components/schemas/" + escape(name)}
            path, method, status = entry["path"], entry["method"], str(entry["status"])
            operation = document.get("paths", {}).get(path, {}).get(method)
            if operation is None:
                raise LookupError("%s %s is not in the document" % (method.upper(), path))
            responses = operation.get("responses", {})
            key = status if status in responses else (status[0] + "XX" if status[0] + "XX" in responses else "default")
            if key not in responses:
                raise LookupError("status %s is not documented for %s %s (documented: %s)"
                                  % (status, method.upper(), path, ", ".join(sorted(responses))))
            response = resolve(responses[key])
            content = (response.get("content") or {}).get("application/json")
            if content is None or "schema" not in content:
                raise LookupError("%s %s %s documents no application/json body" % (method.upper(), path, key))
            return convert(content["schema"])

        def location(error):
            return "/".join(str(part) for part in error.absolute_path) or "(root)"

        verdicts = []
        for entry in manifest:
            try:
                schema = dict(target_schema(entry))
            except LookupError as error:
                verdicts.append(str(error))
                continue
            raw = open(entry["file"], "rb").read()
            try:
                instance = json.loads(raw)
            except ValueError as error:
                verdicts.append("not JSON (%s): %r" % (error, raw[:200]))
                continue
            root = {"components": components, **schema} if "$ref" not in schema else {"components": components, "allOf": [schema]}
            Draft4Validator.check_schema(root)
            validator = Draft4Validator(root)
            errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
            verdicts.append("; ".join("at %s: %s" % (location(e), e.message) for e in errors[:5]) if errors else None)
        print(json.dumps(verdicts))
        """#
}
