#!/usr/bin/env bash
# `make test`: installs what is missing, starts an ephemeral redis-server, a TLS-only
# redis-server (certificates made with openssl), a Redis Cluster (3 primaries + 3 replicas)
# and a Kafka broker on free loopback ports, runs every test (unit and integration) and stops the servers whatever
# the outcome. Extra arguments go to `swift test`; without any, the console is also tested in
# headless Chromium (Deploy/local/browser.sh) and the gateway fuzzed against
# Schemas/openapi.yaml (Deploy/local/fuzz.sh, FUZZ_EXAMPLES=10 per operation).
# Exits non-zero when the tests or the fuzzing fail.
#
# The tests find the servers through BRAID_TEST_* variables; an integration test fails
# (never skips) when they are missing or the servers do not answer.
set -euo pipefail
BRAID_SCRIPT=test
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$BRAID_ROOT"

"$BRAID_ROOT/Deploy/local/bootstrap.sh"

export BRAID_RUN_DIR="$BRAID_ROOT/.run/test-$$"
mkdir -p "$BRAID_RUN_DIR"
redis_port="$(braid_free_port)"
redis_tls_port="$(braid_free_port)"
kafka_port="$(braid_free_port)"
cleanup() {
  braid_stop_servers "$redis_port" "$redis_tls_port" "$kafka_port"
  # Tests that start servers of their own leave their pid files here.
  local f
  for f in "$BRAID_RUN_DIR"/*.pid; do [ -e "$f" ] && braid_stop_pidfile "$f"; done
  rm -rf "$BRAID_RUN_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Build first, before the servers start: a clean build takes minutes.
swift build --build-tests

braid_start_redis "$redis_port"
braid_make_tls_files "$BRAID_RUN_DIR/tls"
braid_start_redis_tls "$redis_tls_port" "$BRAID_RUN_DIR/tls"
braid_start_redis_cluster shared
braid_start_broker "$kafka_port" "${BRAID_TEST_PARTITIONS:-6}"

export BRAID_TEST_REDIS_URL="redis://127.0.0.1:$redis_port"
export BRAID_TEST_REDIS_PID="$(cat "$BRAID_RUN_DIR/redis-$redis_port.pid")"
export BRAID_TEST_REDIS_TLS_URL="rediss://127.0.0.1:$redis_tls_port"
export BRAID_TEST_TLS_DIR="$BRAID_RUN_DIR/tls"
export BRAID_TEST_REDIS_CLUSTER_NODES="$(sed 's/^/127.0.0.1:/' "$BRAID_RUN_DIR/cluster-shared/ports" | paste -sd, -)"
export BRAID_TEST_KAFKA_BROKERS="127.0.0.1:$kafka_port"
export BRAID_TEST_KAFKA_PID="$(cat "$BRAID_RUN_DIR/broker-$kafka_port.pid")"
export BRAID_TEST_RUN_DIR="$BRAID_RUN_DIR"
export BRAID_ROOT

status=0
# One test at a time: the local broker's group coordinator has left consumer groups unassigned
# (a test then waits for ever) when many tests join and leave groups at the same instant.
swift test --skip-build --no-parallel "$@" || status=$?

# The whole suite (no filter) also drives the console in headless Chromium (Deploy/local/
# browser.sh, on servers of its own) and fuzzes the gateway against Schemas/openapi.yaml, with a
# small example count, on the servers above (Deploy/local/fuzz.sh; `make fuzz` runs more).
if (($# == 0)); then
  browser_status=0
  BRAID="$(swift build --show-bin-path)/braid" "$BRAID_ROOT/Deploy/local/browser.sh" || browser_status=$?
  ((status != 0)) || status="$browser_status"
  fuzz_status=0
  BRAID="$(swift build --show-bin-path)/braid" FUZZ_EXAMPLES="${FUZZ_EXAMPLES:-10}" \
    BRAID_FUZZ_REDIS_URL="$BRAID_TEST_REDIS_URL" BRAID_FUZZ_KAFKA_BROKERS="$BRAID_TEST_KAFKA_BROKERS" \
    "$BRAID_ROOT/Deploy/local/fuzz.sh" || fuzz_status=$?
  ((status != 0)) || status="$fuzz_status"
fi
exit "$status"
