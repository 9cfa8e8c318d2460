# Shared helpers of the release scripts (dist, dist-check, image): start and stop
# redis-server and the Kafka-protocol broker (tansu) on loopback, with pid files and logs in
# the git-ignored .run/ folder. Development and tests use the Swift harness (BraidHarness).
# Sourced, not run.

BRAID_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BRAID_RUN_DIR="${BRAID_RUN_DIR:-$BRAID_ROOT/.run}"
BRAID_TOPICS=(braid.requests braid.requests.dlq braid.events)

# The librdkafka >= 2.2 that bootstrap.sh put in .lib/ must win over Debian's 2.0.2 for every
# program we start (kcat included); our own binaries also carry an rpath to it.
export LD_LIBRARY_PATH="$BRAID_ROOT/.lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$BRAID_ROOT/.lib:$BRAID_ROOT/.venv/bin:$PATH"

braid_log() { printf '%s: %s\n' "${BRAID_SCRIPT:-braid}" "$*" >&2; }
braid_die() { braid_log "$*"; exit 1; }

# A TCP port on 127.0.0.1 that nothing listens on right now.
braid_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

braid_port_in_use() {
  python3 - "$1" <<'PY'
import socket, sys
s = socket.socket()
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(0)
sys.exit(1)
PY
}

braid_require_free_port() { # PORT WHAT
  if braid_port_in_use "$1"; then
    braid_die "port $1 (for $2) is already in use on 127.0.0.1; stop whatever listens there or choose another port (see README: configuration)"
  fi
}

# Waits until CMD... succeeds, or the process PID dies, or TIMEOUT seconds pass.
braid_wait_until() { # TIMEOUT PID WHAT CMD...
  local timeout="$1" pid="$2" what="$3"; shift 3
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    kill -0 "$pid" 2>/dev/null || braid_die "$what exited during start-up; see its log in $BRAID_RUN_DIR"
    ((SECONDS < deadline)) || braid_die "$what did not answer within ${timeout}s; see its log in $BRAID_RUN_DIR"
    sleep 0.1
  done
}

braid_start_redis() { # PORT [restart]
  local port="$1"
  mkdir -p "$BRAID_RUN_DIR"
  # A restart on the port just left: connections in TIME_WAIT fail our bind check, while
  # redis-server itself binds with SO_REUSEADDR.
  [ "${2:-}" = restart ] || braid_require_free_port "$port" redis-server
  command -v redis-server >/dev/null || braid_die "redis-server is not installed; run Deploy/local/bootstrap.sh run"
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no \
    --dir "$BRAID_RUN_DIR" --logfile "$BRAID_RUN_DIR/redis-$port.log" --daemonize no &
  local pid=$!
  echo "$pid" >"$BRAID_RUN_DIR/redis-$port.pid"
  braid_wait_until 20 "$pid" "redis-server on port $port" \
    sh -c "[ \"\$(redis-cli -h 127.0.0.1 -p $port ping)\" = PONG ]"
  braid_log "redis-server listening on 127.0.0.1:$port (pid $pid)"
}

braid_start_broker() { # PORT PARTITIONS
  local port="$1" partitions="$2"
  mkdir -p "$BRAID_RUN_DIR"
  braid_require_free_port "$port" "the Kafka broker"
  [ -x "$BRAID_ROOT/.lib/tansu" ] || braid_die "the broker (tansu) is not installed; run Deploy/local/bootstrap.sh run"
  "$BRAID_ROOT/.lib/tansu" broker --listener-url "tcp://127.0.0.1:$port" \
    --advertised-listener-url "tcp://127.0.0.1:$port" >"$BRAID_RUN_DIR/broker-$port.log" 2>&1 &
  local pid=$!
  echo "$pid" >"$BRAID_RUN_DIR/broker-$port.pid"
  braid_wait_until 20 "$pid" "the broker on port $port" \
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1).close()"
  # The broker keeps topics in memory only: every start creates them again.
  local topic
  for topic in "${BRAID_TOPICS[@]}"; do
    braid_wait_until 20 "$pid" "topic creation for $topic" braid_create_topic "$port" "$topic" "$partitions"
  done
  braid_log "Kafka broker listening on 127.0.0.1:$port (pid $pid; topics ${BRAID_TOPICS[*]}, $partitions partitions each)"
}

# Creates a topic; one that exists already counts as created.
braid_create_topic() { # PORT TOPIC PARTITIONS
  local out
  out="$("$BRAID_ROOT/.lib/tansu" topic create "$2" --partitions "$3" --broker "tcp://127.0.0.1:$1" 2>&1)" && return 0
  grep -q "already exists" <<<"$out"
}

# Stops the process of a pid file: SIGTERM, then SIGKILL after a grace period.
braid_stop_pidfile() { # FILE
  local file="$1" pid
  [ -f "$file" ] || return 0
  pid="$(cat "$file")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -CONT "$pid" 2>/dev/null || true # a test may have frozen it
    kill -TERM "$pid" 2>/dev/null || true
    local i
    for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
}

braid_stop_servers() { # PORT...: stops the redis and broker of these ports
  local port
  for port in "$@"; do
    braid_stop_pidfile "$BRAID_RUN_DIR/redis-$port.pid"
    braid_stop_pidfile "$BRAID_RUN_DIR/broker-$port.pid"
  done
}
