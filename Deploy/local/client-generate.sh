#!/usr/bin/env bash
# The generated half of BraidClient: swift-openapi-generator over Schemas/openapi.yaml, written
# to Sources/BraidClient/Generated and committed, so that neither this package's builds nor an
# app's build the generator (a build plugin would build it in every configuration, and Xcode
# asks each app developer to trust it).
#
#   client-generate.sh          regenerate Sources/BraidClient/Generated from Schemas/openapi.yaml
#   client-generate.sh --check  fail, saying what differs, when the committed code is not what the
#                               generator makes of the document today (make test runs this); while
#                               generated-from.sha256 still matches, without building the generator
#
# The generator is built once, from the package cache, in .build/openapi-generator (ignored).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

GENERATOR_VERSION="1.14.3"   # the swift-openapi-generator release the committed code was made with
tool="$root/.build/openapi-generator"
target="$root/Sources/BraidClient/Generated"
config="$target/openapi-generator-config.yaml"

# What the committed code was generated from, and the code itself: written after each
# regeneration. While it still matches, --check needs no generator (building it is a minute of a
# fresh clone's CI); any edit to the document, the config, the version or the generated files
# changes it, and then the generator runs and the code is compared for real.
stamp="$target/generated-from.sha256"
fingerprint() {
  { cat Schemas/openapi.yaml "$config"; echo "swift-openapi-generator $GENERATOR_VERSION"; cat "$target"/*.swift; } | sha256sum | cut -d' ' -f1
}
if [[ "${1:-}" == "--check" ]] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(fingerprint)" ]; then
  echo "client-generate: Sources/BraidClient/Generated is what swift-openapi-generator $GENERATOR_VERSION made of Schemas/openapi.yaml (fingerprint unchanged)"
  exit 0
fi

mkdir -p "$tool"
cat > "$tool/Package.swift" <<SWIFT
// swift-tools-version: 6.1
// Written by Deploy/local/client-generate.sh: builds swift-openapi-generator's command.
import PackageDescription
let package = Package(
    name: "OpenAPIGeneratorTool",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator", exact: "$GENERATOR_VERSION")])
SWIFT
swift build --package-path "$tool" --product swift-openapi-generator -c debug >"$tool/build.log" 2>&1 ||
  { cat "$tool/build.log" >&2; echo "client-generate: building swift-openapi-generator $GENERATOR_VERSION failed" >&2; exit 1; }
generator="$(swift build --package-path "$tool" --show-bin-path)/swift-openapi-generator"

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$generator" generate Schemas/openapi.yaml --config "$config" --output-directory "$out" >"$out.log" 2>&1 ||
  { cat "$out.log" >&2; rm -f "$out.log"; echo "client-generate: the generator refused Schemas/openapi.yaml" >&2; exit 1; }
rm -f "$out.log"

if [[ "${1:-}" == "--check" ]]; then
  if ! diff -r -q -x openapi-generator-config.yaml "$out" "$target" >/dev/null; then
    diff -r -u -x openapi-generator-config.yaml "$target" "$out" | head -40 >&2 || true
    echo "client-generate: Sources/BraidClient/Generated is not what swift-openapi-generator makes of Schemas/openapi.yaml; run Deploy/local/client-generate.sh and commit the result" >&2
    exit 1
  fi
  echo "client-generate: Sources/BraidClient/Generated matches Schemas/openapi.yaml"
else
  find "$target" -name '*.swift' -delete
  cp "$out"/*.swift "$target"/
  fingerprint >"$stamp"
  echo "client-generate: wrote $(ls "$out"/*.swift | wc -l) files to Sources/BraidClient/Generated"
fi
