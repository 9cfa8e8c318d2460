# Shared helpers of the local scripts: start and stop redis-server and the Kafka-protocol
# broker (tansu) on loopback, with pid files and logs in the git-ignored .run/ folder.
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

# N distinct free TCP ports on 127.0.0.1, one per line (one python start for all).
braid_free_ports() { # N
  python3 - "$1" <<'PY'
import socket, sys
sockets = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in sockets: s.bind(("127.0.0.1", 0))
print("\n".join(str(s.getsockname()[1]) for s in sockets))
PY
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
  command -v redis-server >/dev/null || braid_die "redis-server is not installed; run Deploy/local/bootstrap.sh"
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
  [ -x "$BRAID_ROOT/.lib/tansu" ] || braid_die "the broker (tansu) is not installed; run Deploy/local/bootstrap.sh"
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

# TLS material for tests and benchmarks, made with openssl into DIR (EC P-256 keys: fast):
#   ca.crt/.key              the CA the test servers and clients trust
#   server.crt/.key          issued by it for localhost and 127.0.0.1
#   server-dns.crt/.key      issued by it for the name localhost only (no IP address)
#   client.crt/.key          a client certificate issued by it (mutual TLS)
#   other-ca.crt             an unrelated CA (a wrong CA file)
#   other-client.crt/.key    a client certificate of that other CA (refused by the servers)
#   selfsigned.crt/.key      a self-signed server certificate for localhost and 127.0.0.1
braid_make_tls_files() { # DIR
  local dir="$1" key=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
  mkdir -p "$dir"
  [ -f "$dir/selfsigned.crt" ] && return 0
  command -v openssl >/dev/null || braid_die "openssl is not installed; run Deploy/local/bootstrap.sh"
  local san="subjectAltName=DNS:localhost,IP:127.0.0.1"
  (
    cd "$dir"
    openssl req -x509 "${key[@]}" -keyout ca.key -out ca.crt -days 7 -subj "/O=Braid tests/CN=Braid Test CA"
    openssl req -x509 "${key[@]}" -keyout other-ca.key -out other-ca.crt -days 7 -subj "/O=Elsewhere/CN=Other CA"
    openssl req -x509 "${key[@]}" -keyout selfsigned.key -out selfsigned.crt -days 7 -subj "/CN=localhost" -addext "$san"
    braid_issue_cert ca server "/CN=localhost" "$san
extendedKeyUsage=serverAuth"
    braid_issue_cert ca server-dns "/CN=localhost" "subjectAltName=DNS:localhost
extendedKeyUsage=serverAuth"
    braid_issue_cert ca client "/CN=braid-client" "extendedKeyUsage=clientAuth"
    braid_issue_cert other-ca other-client "/CN=braid-client" "extendedKeyUsage=clientAuth"
  ) 2>"$dir/openssl.log" || braid_die "openssl failed; see $dir/openssl.log"
}

braid_issue_cert() { # CA NAME SUBJECT EXTENSIONS (in the current folder)
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$2.key" -out "$2.csr" -subj "$3"
  openssl x509 -req -in "$2.csr" -CA "$1.crt" -CAkey "$1.key" -CAcreateserial -out "$2.crt" -days 7 -extfile <(printf '%s\n' "$4")
  rm -f "$2.csr"
}

# A redis-server that speaks TLS only (--port 0), with the files of braid_make_tls_files.
# AUTH_CLIENTS is redis's tls-auth-clients: optional (default; a presented client
# certificate must verify), yes (mutual TLS required) or no.
braid_start_redis_tls() { # PORT TLS_DIR [AUTH_CLIENTS]
  local port="$1" dir="$2"
  mkdir -p "$BRAID_RUN_DIR"
  braid_require_free_port "$port" "redis-server (TLS)"
  redis-server --port 0 --tls-port "$port" --bind 127.0.0.1 --save "" --appendonly no \
    --tls-cert-file "$dir/server.crt" --tls-key-file "$dir/server.key" --tls-ca-cert-file "$dir/ca.crt" \
    --tls-auth-clients "${3:-optional}" \
    --dir "$BRAID_RUN_DIR" --logfile "$BRAID_RUN_DIR/redis-tls-$port.log" --daemonize no \
    </dev/null >>"$BRAID_RUN_DIR/redis-tls-$port.log" 2>&1 &
  local pid=$!
  echo "$pid" >"$BRAID_RUN_DIR/redis-$port.pid"
  braid_wait_until 20 "$pid" "redis-server (TLS) on port $port" \
    sh -c "[ \"\$(redis-cli --tls --cacert '$dir/ca.crt' --cert '$dir/client.crt' --key '$dir/client.key' -h 127.0.0.1 -p $port ping)\" = PONG ]"
  braid_log "redis-server (TLS) listening on 127.0.0.1:$port (pid $pid)"
}

# A Redis Cluster of 3 primaries with one replica each on free loopback ports, in
# $BRAID_RUN_DIR/cluster-NAME/ (one folder per node; `ports` lists the six client ports,
# primaries first). Pid files are $BRAID_RUN_DIR/redis-cluster-PORT.pid. Nodes notice a dead
# peer after BRAID_CLUSTER_NODE_TIMEOUT ms (default 2000), and keep serving the slots
# they have while another primary is down (cluster-require-full-coverage no).
braid_start_redis_cluster() { # NAME
  local name="$1" dir="$BRAID_RUN_DIR/cluster-$1" port bus pid i free ports=() pids=()
  command -v redis-server >/dev/null || braid_die "redis-server is not installed; run Deploy/local/bootstrap.sh"
  mkdir -p "$dir"
  mapfile -t free < <(braid_free_ports 12)
  for i in 0 1 2 3 4 5; do
    port="${free[$i]}"
    bus="${free[$((i + 6))]}"
    mkdir -p "$dir/$port"
    redis-server --port "$port" --bind 127.0.0.1 --cluster-enabled yes --cluster-port "$bus" \
      --cluster-config-file nodes.conf --cluster-node-timeout "${BRAID_CLUSTER_NODE_TIMEOUT:-2000}" \
      --cluster-require-full-coverage no --save "" --appendonly no \
      --dir "$dir/$port" --logfile "$dir/$port/redis.log" --daemonize no </dev/null >"$dir/$port/stdout.log" 2>&1 &
    pid=$!
    echo "$pid" >"$BRAID_RUN_DIR/redis-cluster-$port.pid"
    ports+=("$port")
    pids+=("$pid")
  done
  for i in "${!ports[@]}"; do
    braid_wait_until 20 "${pids[$i]}" "cluster node on port ${ports[$i]}" \
      sh -c "[ \"\$(redis-cli -h 127.0.0.1 -p ${ports[$i]} ping)\" = PONG ]"
  done
  local addresses=()
  for port in "${ports[@]}"; do addresses+=("127.0.0.1:$port"); done
  redis-cli --cluster create "${addresses[@]}" --cluster-replicas 1 --cluster-yes >"$dir/create.log" 2>&1 ||
    braid_die "redis-cli --cluster create failed; see $dir/create.log"
  for port in "${ports[@]}"; do
    braid_wait_until 20 "${pids[0]}" "cluster state ok on port $port" braid_cluster_node_ready "$port" "${#ports[@]}"
  done
  # Primaries first: the first three addresses given to --cluster create get the slots.
  printf '%s\n' "${ports[@]}" >"$dir/ports"
  braid_log "Redis Cluster '$name' on 127.0.0.1 ports ${ports[*]} (3 primaries + 3 replicas)"
}

# Whether a cluster node sees the whole cluster: state ok and all N nodes known.
braid_cluster_node_ready() { # PORT N
  local info
  info="$(redis-cli -h 127.0.0.1 -p "$1" cluster info)" || return 1
  grep -q '^cluster_state:ok' <<<"$info" && grep -q "^cluster_known_nodes:$2" <<<"$info"
}

braid_stop_redis_cluster() { # NAME
  local dir="$BRAID_RUN_DIR/cluster-$1" port
  [ -f "$dir/ports" ] || return 0
  for port in $(cat "$dir/ports"); do braid_stop_pidfile "$BRAID_RUN_DIR/redis-cluster-$port.pid"; done
  rm -rf "$dir"
}
