#!/usr/bin/env bash
# `make bench [ONLY=group]`: every benchmark group prints figures and `RATIO <name> <value>`
# lines (ours ÷ a baseline measured in the same run, on the same servers and machine).
# Groups are the scripts in Deploy/local/bench/<group>.sh; each runs with:
#   BRAID (the release binary), BRAID_BENCH_REDIS_URL, BRAID_BENCH_REDIS_PORT,
#   BRAID_BENCH_KAFKA_BROKERS, BRAID_BENCH_KAFKA_PORT, BRAID_RUN_DIR, and lib.sh's helpers.
set -euo pipefail
BRAID_SCRIPT=bench
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$BRAID_ROOT"
only="${1:-all}"

groups=()
if [ "$only" = all ]; then
  for f in Deploy/local/bench/*.sh; do [ -e "$f" ] && groups+=("$(basename "$f" .sh)"); done
else
  [ -f "Deploy/local/bench/$only.sh" ] || braid_die "no benchmark group '$only' (have: $(ls Deploy/local/bench | sed 's/\.sh$//' | tr '\n' ' '))"
  groups=("$only")
fi

"$BRAID_ROOT/Deploy/local/bootstrap.sh"
swift build -c release --product braid
export BRAID="$(swift build -c release --show-bin-path)/braid"
"$BRAID" version

export BRAID_RUN_DIR="$BRAID_ROOT/.run/bench-$$"
mkdir -p "$BRAID_RUN_DIR"
redis_port="$(braid_free_port)"
kafka_port="$(braid_free_port)"
cleanup() {
  braid_stop_servers "$redis_port" "$kafka_port"
  local f
  for f in "$BRAID_RUN_DIR"/*.pid; do [ -e "$f" ] && braid_stop_pidfile "$f"; done
  rm -rf "$BRAID_RUN_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

braid_start_redis "$redis_port"
braid_start_broker "$kafka_port" "${BRAID_PARTITIONS:-6}"
export BRAID_BENCH_REDIS_URL="redis://127.0.0.1:$redis_port" BRAID_BENCH_REDIS_PORT="$redis_port"
export BRAID_BENCH_KAFKA_BROKERS="127.0.0.1:$kafka_port" BRAID_BENCH_KAFKA_PORT="$kafka_port"

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -sr)"
for group in "${groups[@]}"; do
  echo "== $group"
  source "Deploy/local/bench/$group.sh"
done
