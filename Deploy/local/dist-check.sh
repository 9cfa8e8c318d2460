#!/usr/bin/env bash
# `make dist-check`: proves the release tarball (`make dist`) on a bare Debian system.
#
#  1. A cached `debootstrap --variant=minbase bookworm` (under ~/.cache/braid/, outside the
#     checkout; BRAID_CACHE_DIR overrides) gets a throw-away overlay for this run.
#  2. Only the packages of Deploy/container/runtime-packages.txt are installed there, the list
#     the container image installs: no Swift toolchain, no -dev package (both checked).
#  3. The tarball is unpacked as README.md "Deploying" says (/opt/braid, /usr/local/bin/braid,
#     /etc/braid/braid.yaml). Every library braid loads must resolve, and come from the tarball
#     or a listed package; every listed package must provide one (or say `no library:`).
#  4. In the chroot, as an unprivileged user (uid 10001, as in the image): `braid version`
#     (librdkafka >= 2.2, jemalloc), `braid seed`, then `braid worker` and `braid gateway` against a
#     redis-server and the Kafka broker this script starts on loopback; the image's health
#     check passes on both; `braid publish` a ranking request, the worker materializes it,
#     and `curl` from the host fetches an interleaved page with items of both teams.
#  5. SIGTERM: both services exit 0. Everything is stopped and unmounted on every exit path.
#
# Prints one PASS or FAIL line per step; exits non-zero on the first failure. Needs root
# (debootstrap, mount, chroot), as CI has.
set -euo pipefail
BRAID_SCRIPT=dist-check
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$BRAID_ROOT/Deploy/local/bare-system.sh"
cd "$BRAID_ROOT"

pass() { printf 'dist-check: PASS %s\n' "$*"; }
fail() { printf 'dist-check: FAIL %s\n' "$*"; exit 1; }

[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, mount and chroot): run it as root, e.g. sudo make dist-check"
started=$SECONDS

version="$(tr -d '[:space:]' <VERSION)"
name="braid-$version-linux-$(uname -m)"
tarball="$BRAID_ROOT/.build/dist/$name.tar.gz"
[ -f "$tarball" ] || fail "no $tarball: run make dist first (make dist-check does)"
packages_file="$BRAID_ROOT/Deploy/container/runtime-packages.txt"
mapfile -t packages < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$packages_file" | awk '{ print $1 }')
((${#packages[@]})) || fail "$packages_file lists no package"

# Earlier runs that were killed before their clean-up: stop the servers and services they
# started (pid files; only if the pid still runs one of them), unmount and remove what they left.
for stale in "$BRAID_ROOT"/.run/dist-check-*; do
  [ -d "$stale" ] || continue
  kill -0 "${stale##*-}" 2>/dev/null && continue
  for pidfile in "$stale"/*.pid; do
    [ -f "$pidfile" ] || continue
    if tr '\0' ' ' 2>/dev/null <"/proc/$(cat "$pidfile")/cmdline" | grep -Eq '(^| |/)(redis-server|tansu|braid) '; then
      braid_log "stopping $(basename "$pidfile" .pid) (pid $(cat "$pidfile")), left by an earlier run"
      braid_stop_pidfile "$pidfile"
    fi
  done
  braid_remove_tree "$stale" || fail "cannot clean up $stale, which an earlier run left mounted"
done

export BRAID_RUN_DIR="$BRAID_ROOT/.run/dist-check-$$"
mkdir -p "$BRAID_RUN_DIR"
bare="$BRAID_RUN_DIR/bare"
root="$bare/root"
redis_port="" kafka_port="" gateway_pid="" worker_pid=""
cleanup() {
  local status=$?
  set +e # every step below runs, whatever fails
  local pid
  for pid in "$gateway_pid" "$worker_pid"; do
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill -KILL "$pid"
      wait "$pid" 2>/dev/null
    fi
  done
  [ -n "$redis_port$kafka_port" ] && braid_stop_servers $redis_port $kafka_port
  # The bare root always goes; the logs stay after a failure (the next run removes them).
  braid_remove_tree "$bare" || status=1
  if ((status == 0)); then
    rm -rf "$BRAID_RUN_DIR"
    printf 'dist-check: PASS %s on a bare bookworm system (%d s)\n' "$name" $((SECONDS - started))
  else
    printf 'dist-check: FAIL %s (logs in %s)\n' "$name" "$BRAID_RUN_DIR"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- 1. the bare system
step=$SECONDS
braid_bare_base
braid_bare_root "$BRAID_BASE" "$bare"
pass "bare system: debootstrap --variant=minbase $BRAID_SUITE ($BRAID_BASE, $(chroot "$root" dpkg-query -W -f '.\n' | wc -l) packages; $((SECONDS - step)) s)"

# Runs CMD as root in the bare system, with nothing of the host's environment.
as_root() { env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive chroot "$root" "$@"; }
# Runs CMD in the bare system as uid/gid 10001 (the image's user), with only the BRAID_*
# variables given as NAME=VALUE arguments before it.
as_braid() {
  env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin chroot --userspec=10001:10001 "$root" \
    /usr/bin/env -i HOME=/var/lib/braid PATH=/usr/local/bin:/usr/bin:/bin "$@"
}
# As as_braid, in the background with output to LOG; env, chroot and env exec one another, so
# $! is the pid of the service itself (signals reach it, `wait` returns its status).
spawn_as_braid() { # LOG NAME=VALUE... CMD...
  local log="$1"
  shift
  (exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin chroot --userspec=10001:10001 "$root" \
    /usr/bin/env -i HOME=/var/lib/braid PATH=/usr/local/bin:/usr/bin:/bin "$@") >"$log" 2>&1 &
}

# --- 2. the runtime packages, and nothing of a build machine
step=$SECONDS
archives="$BRAID_CACHE_DIR/apt-archives"
mkdir -p "$archives"
cp -n "$archives"/*.deb "$root/var/cache/apt/archives/" 2>/dev/null || true # downloaded by an earlier run
install_log="$BRAID_RUN_DIR/apt.log"
if ! as_root apt-get install -y -q --no-install-recommends "${packages[@]}" >"$install_log" 2>&1; then
  # The cached package index may name versions the mirror no longer has.
  as_root apt-get update -qq >>"$install_log" 2>&1 &&
    as_root apt-get install -y -q --no-install-recommends "${packages[@]}" >>"$install_log" 2>&1 ||
    { cat "$install_log"; fail "apt-get install ${packages[*]} in the bare system"; }
fi
cp -n "$root"/var/cache/apt/archives/*.deb "$archives/" 2>/dev/null || true
dev="$(as_root dpkg-query -W -f '${Package}\n' | grep -E -- '-dev(:|$)' || true)"
[ -z "$dev" ] || fail "-dev packages in the bare system: $dev"
toolchain="$(find "$root/usr" "$root/opt" -name 'libswiftCore.so*' -o -name swiftc -o -name swift-frontend 2>/dev/null | head -n3)"
[ -z "$toolchain" ] || fail "a Swift toolchain in the bare system: $toolchain"
pass "runtime packages from $(basename "$packages_file"): ${packages[*]} (no -dev package, no Swift toolchain; $((SECONDS - step)) s)"

# --- 3. the artifact, installed as README.md "Deploying" says
tar -xzf "$tarball" -C "$root/opt"
ln -s "$name" "$root/opt/braid"
ln -s /opt/braid/braid "$root/usr/local/bin/braid"
install -d -m 0755 "$root/etc/braid"
install -m 0644 "$root/opt/braid/config/braid.yaml" "$root/etc/braid/braid.yaml"
install -d -o 10001 -g 10001 -m 0750 "$root/var/lib/braid"
pass "unpacked $(basename "$tarball") ($(du -h "$tarball" | cut -f1)) to /opt/$name"

# Every library the binary and its bundled libraries load: resolved, and from the tarball or
# from a listed package; and every listed package provides one, unless it says `no library:`.
ldd_out="$(as_root sh -c 'ldd /opt/braid/braid /opt/braid/lib*.so*' 2>&1)" || fail "ldd in the bare system: $ldd_out"
! grep -q 'not found' <<<"$ldd_out" || fail "unresolved libraries in the bare system: $(grep 'not found' <<<"$ldd_out" | tr -s ' \t' ' ')"
declare -A owners=()
while read -r library; do
  owner="$(as_root dpkg -S "$library" 2>/dev/null || as_root dpkg -S "$(as_root readlink -f "$library")" 2>/dev/null)" ||
    fail "$library (loaded by braid) belongs to no package"
  owners["${owner%%:*}"]+="$(basename "$library") "
done < <(awk '$2 == "=>" && $3 ~ /^\// && $3 !~ /^\/opt\/braid\// { print $3 } $1 ~ /^\/lib/ && $2 ~ /^\(/ { print $1 }' <<<"$ldd_out" | sort -u)
for owner in "${!owners[@]}"; do
  grep -qx "$owner" < <(printf '%s\n' "${packages[@]}") ||
    fail "package $owner (${owners[$owner]% }) is missing from $(basename "$packages_file")"
done
for package in "${packages[@]}"; do
  [ -n "${owners[$package]:-}" ] && continue
  grep -Eq "^[[:space:]]*$package[[:space:]]+#[[:space:]]*no library:" "$packages_file" ||
    fail "$package in $(basename "$packages_file") provides no library braid loads (say why with '# no library: …', or drop it)"
done
pass "libraries: $(for o in "${!owners[@]}"; do printf '%s (%s) ' "$o" "${owners[$o]% }"; done)+ /opt/braid: $(grep -o '=> /opt/braid/lib[^ ]*' <<<"$ldd_out" | sort -u | xargs -n1 basename | grep -v '=>' | tr '\n' ' ')"

# --- 4. braid version, as the unprivileged user
report="$(as_braid braid version 2>&1)" || fail "braid version exited non-zero: $report"
grep -qx "braid $version" <<<"$report" || fail "braid version does not report $version: $report"
kafka_version="$(sed -n 's/^librdkafka \([0-9][0-9.]*\).*/\1/p' <<<"$report")"
python3 -c 'import sys; v = tuple(map(int, sys.argv[1].split("."))); sys.exit(0 if v >= (2, 2) else 1)' "${kafka_version:-0}" ||
  fail "braid version reports librdkafka '${kafka_version}', needs >= 2.2: $report"
# The file the running process mapped (the kernel's name, symlinks resolved), not ldd's forecast.
loaded="$(sed -n 's/^librdkafka [^ ]* from \(.*\)$/\1/p' <<<"$report")"
[ -n "$loaded" ] && [ "$root$loaded" -ef "$root/opt/braid/librdkafka.so.1" ] ||
  fail "braid does not run the librdkafka next to it (/opt/braid/librdkafka.so.1): $report"
grep -q '^allocator jemalloc ' <<<"$report" || fail "braid does not run on jemalloc (libjemalloc2 is in the runtime packages): $report"
pass "braid version: $(tr '\n' ';' <<<"$report" | sed 's/;$//; s/;/; /g')"

# --- 5. servers on loopback, seeded corpus, worker and gateway from the chroot
redis_port="$(braid_free_port)"
kafka_port="$(braid_free_port)"
braid_start_redis "$redis_port"
braid_start_broker "$kafka_port" 3
gateway_port="$(braid_free_port)"
metrics_port="$(braid_free_port)"
braid_env=(
  BRAID_REDIS_URL="redis://127.0.0.1:$redis_port" BRAID_KAFKA_BROKERS="127.0.0.1:$kafka_port"
  BRAID_GATEWAY_HOST=127.0.0.1 BRAID_GATEWAY_PORT="$gateway_port"
  BRAID_WORKER_METRICS_HOST=127.0.0.1 BRAID_WORKER_METRICS_PORT="$metrics_port"
)
config=(--config /etc/braid/braid.yaml)

seeded="$(as_braid "${braid_env[@]}" braid seed --docs 2000 --users 20 "${config[@]}" 2>&1)" || fail "braid seed: $seeded"
pass "braid seed: $(tail -n1 <<<"$seeded")"

spawn_as_braid "$BRAID_RUN_DIR/worker.log" "${braid_env[@]}" braid worker "${config[@]}"
worker_pid=$!
echo "$worker_pid" >"$BRAID_RUN_DIR/worker.pid" # for the clean-up of a run killed with SIGKILL
spawn_as_braid "$BRAID_RUN_DIR/gateway.log" "${braid_env[@]}" braid gateway "${config[@]}"
gateway_pid=$!
echo "$gateway_pid" >"$BRAID_RUN_DIR/gateway.pid"
up() { curl -fsS -o /dev/null --max-time 2 "$1"; }
wait_for() { # SECONDS PID WHAT LOG CMD...
  local deadline=$((SECONDS + $1)) pid="$2" what="$3" log="$4"; shift 4
  until "$@" >/dev/null 2>&1; do
    kill -0 "$pid" 2>/dev/null || { tail -n 30 "$log"; fail "$what exited; its log is above"; }
    ((SECONDS < deadline)) || { tail -n 30 "$log"; fail "$what: not within ${1}s; its log is above"; }
    sleep 0.2
  done
}
wait_for 60 "$worker_pid" "braid worker" "$BRAID_RUN_DIR/worker.log" up "http://127.0.0.1:$metrics_port/healthz"
wait_for 60 "$gateway_pid" "braid gateway" "$BRAID_RUN_DIR/gateway.log" up "http://127.0.0.1:$gateway_port/readyz"
pass "braid worker (metrics on :$metrics_port) and braid gateway (:$gateway_port, /readyz 200) run in the chroot as uid 10001"

# The container image's HEALTHCHECK, in the same system: healthy on each service, and not on a
# port where nothing answers.
for port in "$gateway_port" "$metrics_port"; do
  as_braid BRAID_HEALTHCHECK_PORT="$port" /opt/braid/braid-healthcheck || fail "braid-healthcheck on port $port"
done
as_braid BRAID_GATEWAY_PORT="$gateway_port" BRAID_WORKER_METRICS_PORT=1 /opt/braid/braid-healthcheck || fail "braid-healthcheck with the gateway's port"
if as_braid BRAID_HEALTHCHECK_PORT="$(braid_free_port)" /opt/braid/braid-healthcheck 2>/dev/null; then
  fail "braid-healthcheck reports healthy where nothing listens"
fi
pass "braid-healthcheck: healthy on the gateway and the worker, unhealthy where nothing listens"

# --- 6. publish, materialize, serve one interleaved page
query="curry rice"
published="$(as_braid "${braid_env[@]}" braid publish --ranking featured --query "$query" "${config[@]}" 2>&1)" ||
  fail "braid publish: $published"
snapshot_ready() { as_braid "${braid_env[@]}" braid ops snapshot show featured "$query" --json "${config[@]}" >"$BRAID_RUN_DIR/snapshot.json"; }
wait_for 90 "$worker_pid" "the worker's snapshot of '$query'" "$BRAID_RUN_DIR/worker.log" snapshot_ready
processed="$(curl -fsS "http://127.0.0.1:$metrics_port/metrics" | awk '/^braid_worker_processed_total.*kind="ranking"/ { n += $NF } END { print n + 0 }')"
[ "${processed%.*}" -ge 1 ] || fail "the snapshot exists but the worker's braid_worker_processed_total{kind=\"ranking\"} is $processed"
pass "braid publish → braid worker: snapshot of featured/'$query' in Redis (worker processed $processed ranking request(s))"

curl -fsS --max-time 10 -o "$BRAID_RUN_DIR/page.json" "http://127.0.0.1:$gateway_port/v1/search?q=curry+rice&per_page=10" ||
  fail "GET /v1/search from the host: $(tail -n 20 "$BRAID_RUN_DIR/gateway.log")"
summary="$(python3 - "$BRAID_RUN_DIR/page.json" "$BRAID_RUN_DIR/snapshot.json" 2>&1 <<'PY'
import json, sys
page = json.load(open(sys.argv[1]))
snapshot = json.load(open(sys.argv[2]))
items = page.get("items") or []
teams = {item.get("team") for item in items}
ids = [item.get("id") for item in items]
problems = []
if teams != {"A", "B"}: problems.append(f"teams {sorted(map(str, teams))}, want A and B")
if len(set(ids)) != len(ids): problems.append("a document appears twice")
if any(item.get("source") != "cached" for item in items if item.get("team") == "B"): problems.append("a B item not from the cache")
if page.get("degraded"): problems.append("degraded page")
if page.get("interleaving", {}).get("snapshot") != snapshot.get("current_version"):
    problems.append(f"page used snapshot {page.get('interleaving', {}).get('snapshot')}, the worker wrote {snapshot.get('current_version')}")
if problems: sys.exit("; ".join(problems) + ": " + json.dumps(page)[:600])
print(f"{len(items)} items, pattern {''.join(item['team'] for item in items)}, snapshot {snapshot.get('current_version')}")
PY
)" || fail "interleaved page: $summary"
pass "GET /v1/search?q=curry+rice from the host: $summary"

# --- 7. graceful stop
for service in gateway worker; do
  pid_var="${service}_pid"
  pid="${!pid_var}"
  kill -TERM "$pid"
  status=0
  timeout_at=$((SECONDS + 30))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < timeout_at)); do sleep 0.2; done
  kill -0 "$pid" 2>/dev/null && fail "braid $service still running 30 s after SIGTERM"
  wait "$pid" || status=$?
  printf -v "$pid_var" '%s' ""
  ((status == 0)) || { tail -n 20 "$BRAID_RUN_DIR/$service.log"; fail "braid $service exited $status after SIGTERM"; }
done
pass "SIGTERM: braid gateway and braid worker exited 0"
