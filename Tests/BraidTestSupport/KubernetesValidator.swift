import Foundation

/// Validates Kubernetes manifests against the API schemas of a Kubernetes release, with
/// `kubernetes-validate` (in the project virtualenv, `bootstrap.sh tools`; it bundles the
/// schemas of 1.25 to 1.37), in strict mode: a field the release does not know is an error.
/// Custom resources validate against the schemas of the CustomResourceDefinitions given, made
/// strict likewise, with their metadata checked as the release's ObjectMeta.
public enum KubernetesValidator {
    public struct Report: Sendable {
        /// `file: Kind/name` of every resource that validated.
        public var passed: [String]
        /// `file: Kind/name: path: message` of every resource that did not.
        public var failed: [String]
        /// Resources of kinds that neither the release nor the definitions given have a schema for.
        public var withoutSchema: [String]
    }

    public static func validate(_ files: [URL], kubernetesVersion: String, customResourceDefinitions: [URL] = []) throws -> Report {
        let script = """
            import json, sys, yaml
            import jsonschema
            import kubernetes_validate.utils as kv
            from referencing import Registry, Resource

            def strict(schema):
                # A field a structural schema does not declare is pruned by the API server (kubectl's strict
                # field validation refuses it) unless the schema preserves unknown fields.
                if not isinstance(schema, dict):
                    return
                if "properties" in schema and "additionalProperties" not in schema and not schema.get("x-kubernetes-preserve-unknown-fields"):
                    schema["additionalProperties"] = False
                for child in list(schema.get("properties", {}).values()) + [schema.get("items"), schema.get("additionalProperties")]:
                    strict(child)
                for child in schema.get("allOf", []) + schema.get("anyOf", []) + schema.get("oneOf", []):
                    strict(child)

            version, count = sys.argv[1], int(sys.argv[2])
            release = [v for v in kv.all_versions() if kv.major_minor(v) <= kv.major_minor(version)][-1]
            definitions = kv.schema_contents("kubernetes-json-schema/v%s-local-strict/_definitions.json" % release, version)
            registry = Resource.from_contents(definitions) @ Registry()
            custom = {}
            for path in sys.argv[3:3 + count]:
                with open(path) as f:
                    crd = yaml.safe_load(f)
                for served in crd["spec"]["versions"]:
                    schema = served["schema"]["openAPIV3Schema"]
                    strict(schema)
                    # The API server checks a custom resource's metadata as that of any object.
                    schema["properties"]["metadata"] = {"$ref": definitions["$id"] + "#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
                    custom[(crd["spec"]["group"] + "/" + served["name"], crd["spec"]["names"]["kind"])] = schema
            out = {"passed": [], "failed": [], "unknown": []}
            for path in sys.argv[3 + count:]:
                for resource in kv.resources_from_file(path):
                    name = "%s: %s/%s" % (path.split("/")[-1], resource.get("kind"), resource.get("metadata", {}).get("name"))
                    try:
                        schema = custom.get((resource.get("apiVersion"), resource.get("kind")))
                        if schema is None:
                            kv.validate(resource, version, strict=True)
                        else:
                            jsonschema.Draft202012Validator(schema, registry=registry).validate(resource)
                        out["passed"].append(name)
                    except kv.SchemaNotFoundError:
                        out["unknown"].append(name)
                    except jsonschema.ValidationError as e:
                        out["failed"].append("%s: %s: %s" % (name, ".".join(str(p) for p in e.path), e.message))
            print(json.dumps(out))
            """
        let arguments = [kubernetesVersion, String(customResourceDefinitions.count)] + customResourceDefinitions.map(\.path) + files.map(\.path)
        let run = try PythonScript.run(script, arguments)
        guard run.status == 0, let result = try JSONSerialization.jsonObject(with: run.stdout) as? [String: [String]]
        else { throw JSONSchemaValidator.Failure(description: "kubernetes-validate failed to run: \(run.stderr)") }
        return Report(passed: result["passed"] ?? [], failed: result["failed"] ?? [], withoutSchema: result["unknown"] ?? [])
    }
}
