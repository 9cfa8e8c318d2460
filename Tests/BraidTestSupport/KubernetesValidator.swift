import Foundation

/// Validates Kubernetes manifests against the API schemas of a Kubernetes release, with
/// `kubernetes-validate` (in the project virtualenv, `bootstrap.sh tools`; it bundles the
/// schemas of 1.25 to 1.37), in strict mode: a field the release does not know is an error.
public enum KubernetesValidator {
    public struct Report: Sendable {
        /// `file: Kind/name` of every resource that validated.
        public var passed: [String]
        /// `file: Kind/name: path: message` of every resource that did not.
        public var failed: [String]
        /// Resources of kinds the release has no schema for (custom resources such as KEDA's).
        public var withoutSchema: [String]
    }

    public static func validate(_ files: [URL], kubernetesVersion: String) throws -> Report {
        let script = """
            import json, sys
            import kubernetes_validate.utils as kv
            out = {"passed": [], "failed": [], "unknown": []}
            for path in sys.argv[2:]:
                for resource in kv.resources_from_file(path):
                    name = "%s: %s/%s" % (path.split("/")[-1], resource.get("kind"), resource.get("metadata", {}).get("name"))
                    try:
                        kv.validate(resource, sys.argv[1], strict=True)
                        out["passed"].append(name)
                    except kv.SchemaNotFoundError:
                        out["unknown"].append(name)
                    except kv.ValidationError as e:
                        out["failed"].append("%s: %s: %s" % (name, ".".join(str(p) for p in e.path), e.message))
            print(json.dumps(out))
            """
        let run = try PythonScript.run(script, [kubernetesVersion] + files.map(\.path))
        guard run.status == 0, let result = try JSONSerialization.jsonObject(with: run.stdout) as? [String: [String]]
        else { throw JSONSchemaValidator.Failure(description: "kubernetes-validate failed to run: \(run.stderr)") }
        return Report(passed: result["passed"] ?? [], failed: result["failed"] ?? [], withoutSchema: result["unknown"] ?? [])
    }
}
