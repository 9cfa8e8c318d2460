#!/usr/bin/env bash
# `make fuzz`: runs schemathesis against Schemas/openapi.yaml on a real `braid gateway`
# (small seeded corpus, redis-server and Kafka broker on free loopback ports). Fails on
# any 5xx and on any response that does not conform to the document (status code,
# content type, body schema). Exits with schemathesis' status; stops whatever it started.
#
# Environment:
#   FUZZ_EXAMPLES (50)      examples generated per operation
#   FUZZ_SEED (20240611)    hypothesis seed: the same seed generates the same requests
#   FUZZ_CHECKS             schemathesis checks (default: see `checks` below)
#   BRAID                   a braid binary to use instead of building the debug one
#   BRAID_FUZZ_REDIS_URL and BRAID_FUZZ_KAFKA_BROKERS
#                           servers that are already running (`make test` passes its own);
#                           without them this script starts and stops its own. The gateway's
#                           pid file then goes to the caller's BRAID_RUN_DIR, so its cleanup
#                           stops it too.
# Extra arguments go to `schemathesis run` (e.g. --include-operation-id search).
set -euo pipefail
BRAID_SCRIPT=fuzz
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$BRAID_ROOT"

examples="${FUZZ_EXAMPLES:-50}"
seed="${FUZZ_SEED:-20240611}"
checks="${FUZZ_CHECKS:-not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance}"

reuse=0
if [ -n "${BRAID_FUZZ_REDIS_URL:-}" ] || [ -n "${BRAID_FUZZ_KAFKA_BROKERS:-}" ]; then
  [ -n "${BRAID_FUZZ_REDIS_URL:-}" ] && [ -n "${BRAID_FUZZ_KAFKA_BROKERS:-}" ] ||
    braid_die "set both BRAID_FUZZ_REDIS_URL and BRAID_FUZZ_KAFKA_BROKERS, or neither"
  reuse=1
fi

if ((reuse)); then
  # The caller bootstrapped, built, and owns BRAID_RUN_DIR (its cleanup stops our pid file).
  run_dir="$BRAID_RUN_DIR"
else
  "$BRAID_ROOT/Deploy/local/bootstrap.sh"
  export BRAID_RUN_DIR="$BRAID_ROOT/.run/fuzz-$$"
  run_dir="$BRAID_RUN_DIR"
fi

# schemathesis 3.39 breaks on Hypothesis > 6.131.14 ("'many' object has no attribute 'more'"
# for every operation); say so plainly instead.
hypothesis_version="$("$BRAID_ROOT/.venv/bin/python" -c 'import hypothesis; print(hypothesis.__version__)')"
if ! "$BRAID_ROOT/.venv/bin/python" -c 'import sys; sys.exit(tuple(map(int, sys.argv[1].split(".")[:3])) > (6, 131, 14))' "$hypothesis_version"; then
  braid_die "schemathesis $(schemathesis --version | awk '{print $NF}') needs hypothesis <= 6.131.14 and .venv has $hypothesis_version: pin it in Deploy/local/bootstrap.sh (or .venv/bin/pip install hypothesis==6.131.14)"
fi
mkdir -p "$run_dir"

gateway_pidfile="$run_dir/fuzz-gateway.pid"
gateway_log="$run_dir/fuzz-gateway.log"
redis_port="" kafka_port=""
cleanup() {
  local status=$?
  braid_stop_pidfile "$gateway_pidfile"
  if ((status != 0)) && [ -s "$gateway_log" ]; then
    braid_log "last lines of the gateway log ($gateway_log):"
    tail -n 40 "$gateway_log" >&2 || true
  fi
  if ((!reuse)); then
    [ -n "$redis_port" ] && braid_stop_servers "$redis_port" "$kafka_port"
    local f
    for f in "$run_dir"/*.pid; do [ -e "$f" ] && braid_stop_pidfile "$f"; done
    rm -rf "$run_dir"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ -n "${BRAID:-}" ]; then
  braid="$BRAID"
  [ -x "$braid" ] || braid_die "BRAID=$braid is not an executable"
else
  swift build --product braid
  braid="$(swift build --show-bin-path)/braid"
fi

if ((reuse)); then
  redis_url="$BRAID_FUZZ_REDIS_URL"
  kafka_brokers="$BRAID_FUZZ_KAFKA_BROKERS"
else
  redis_port="$(braid_free_port)"
  kafka_port="$(braid_free_port)"
  braid_start_redis "$redis_port"
  braid_start_broker "$kafka_port" "${BRAID_PARTITIONS:-2}"
  redis_url="redis://127.0.0.1:$redis_port"
  kafka_brokers="127.0.0.1:$kafka_port"
fi

corpus="$run_dir/fuzz-corpus.sqlite"
rm -f "$corpus"
"$braid" seed --docs 2000 --users 50 --db "$corpus" >/dev/null

gateway_port="$(braid_free_port)"
# A key prefix of our own: the servers may be shared with the tests of `make test`.
# A generous live deadline: a loaded 2-core CI machine running a debug build must not turn
# into 503s (deadlines have a test of their own).
BRAID_GATEWAY_HOST=127.0.0.1 BRAID_GATEWAY_PORT="$gateway_port" \
  BRAID_REDIS_URL="$redis_url" BRAID_REDIS_KEY_PREFIX="fuzz-$$" \
  BRAID_KAFKA_BROKERS="$kafka_brokers" BRAID_SEARCH_SQLITE_PATH="$corpus" \
  BRAID_GATEWAY_LIVE_TIMEOUT_MS="${FUZZ_LIVE_TIMEOUT_MS:-10000}" \
  "$braid" gateway >"$gateway_log" 2>&1 &
echo $! >"$gateway_pidfile"
base_url="http://127.0.0.1:$gateway_port"
braid_wait_until 60 "$(cat "$gateway_pidfile")" "the gateway on port $gateway_port" curl -sf "$base_url/healthz"
braid_log "gateway listening on $base_url (pid $(cat "$gateway_pidfile"), log $gateway_log)"

# Generation hooks (schemathesis imports them from SCHEMATHESIS_HOOKS):
#  - Header values lose the control characters HTTP does not allow in a field value
#    (RFC 9110 5.5). Schemathesis keeps to valid header characters only for a bare
#    `{type: string}`; for `{type: string, maxLength: 256}` it sends e.g. "\xff\x15q", which
#    the HTTP parser rejects (bare 400, no body) before any route runs.
#  - Half of the cases use names and words that exist (the feeds and components of the
#    default configuration, seeded users, queries with hits), so that 200 responses get
#    their bodies checked too, not only the 404s of random names.
hooks_dir="$run_dir/fuzz-hooks"
mkdir -p "$hooks_dir"
cat >"$hooks_dir/braid_fuzz_hooks.py" <<'HOOKS'
import re

import schemathesis
from hypothesis import strategies as st

CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
WORDS = ["curry", "chicken", "pasta", "cake", "miso soup", "curry rice", "salad"]
COMPONENTS = {
    "home": ["banner", "carousel", "my-week", "recommended", "creators", "following", "popular-dessert", "new-arrivals", "more"],
    "profile": ["header", "tabs", "recipes", "cooksnaps"],
}
PAIRS = [(feed, component) for feed, names in COMPONENTS.items() for component in names]
USERS = ["u%05d" % n for n in range(1, 51)]


def _operation(context):
    operation = context.operation
    return (operation.method.upper(), operation.path) if operation is not None else (None, "")


def _half(strategy, override):
    """The generated value, or (as often) the same value with `override` applied."""
    return st.one_of(strategy, strategy.flatmap(lambda value: override(value) if isinstance(value, dict) else st.just(value)))


@schemathesis.hook
def map_headers(context, headers):
    if not headers:
        return headers
    return {
        name: CONTROL.sub("", value).lstrip(" \t") if isinstance(value, str) else value
        for name, value in headers.items()
    }


@schemathesis.hook
def before_generate_query(context, strategy):
    method, path = _operation(context)
    if (method, path) == ("GET", "/v1/search"):
        return _half(strategy, lambda query: st.sampled_from(WORDS).map(lambda q: {**query, "q": q}))
    if path.startswith("/v1/feeds/"):
        # Users that exist; `q` (profile tabs only) dropped half of the time so most cases are pages.
        def known(query):
            pick = st.tuples(st.sampled_from(USERS), st.booleans())
            return pick.map(lambda t: {key: value for key, value in {**query, "user": t[0]}.items() if key != "q" or t[1]})

        return _half(strategy, known)
    return strategy


@schemathesis.hook
def before_generate_path_parameters(context, strategy):
    _, path = _operation(context)
    if not path.startswith("/v1/feeds/"):
        return strategy

    def known(parameters):
        def apply(pair):
            out = dict(parameters)
            if "feed" in out:
                out["feed"] = pair[0]
            if "component" in out:
                out["component"] = pair[1]
            return out

        return st.sampled_from(PAIRS).map(apply)

    return _half(strategy, known)


@schemathesis.hook
def before_generate_body(context, strategy):
    if _operation(context) != ("POST", "/v1/feeds/{feed}/components:batchGet"):
        return strategy

    def known(body):
        names = st.lists(st.sampled_from(COMPONENTS["home"]), min_size=1, max_size=5)
        return st.tuples(names, st.sampled_from(USERS)).map(lambda t: {**body, "components": t[0], "user": t[1]})

    return _half(strategy, known)
HOOKS

braid_log "schemathesis: $examples examples per operation, seed $seed, checks $checks"
# Run from the run folder so nothing (.hypothesis/) lands in the checkout; no example database,
# no telemetry, no colours (CI has no TTY), loopback only.
status=0
(
  cd "$run_dir"
  PYTHONPATH="$hooks_dir${PYTHONPATH:+:$PYTHONPATH}" SCHEMATHESIS_HOOKS=braid_fuzz_hooks \
    SCHEMATHESIS_TELEMETRY=false NO_COLOR=1 schemathesis run "$BRAID_ROOT/Schemas/openapi.yaml" \
      --base-url "$base_url" \
      --checks "$checks" \
      --hypothesis-max-examples "$examples" \
      --hypothesis-seed "$seed" \
      --hypothesis-database none \
      --request-timeout 30000 \
      --validate-schema true \
      --code-sample-style curl \
      --no-color \
      "$@"
) || status=$?
if ((status == 0)); then braid_log "passed"; else braid_log "FAILED (schemathesis exit status $status)"; fi
exit "$status"
