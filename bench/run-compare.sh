#!/usr/bin/env bash
# Runs the same load-generator scenarios against Mosquitto and against pekquitto (one column per
# pekquitto configuration), side by side in one run, and prints a markdown table with each value and
# its ratio to Mosquitto's.
#
#   bench/run-compare.sh [-d SECONDS] [-c IDLE_CONNECTIONS] [-o OUT_DIR] [-s SCENARIOS] [-l LABELS]
#                        [-r ROUNDS] [-t] [-w] [-p] [-m] [--] ["[jar=PATH ]JVM_OPTS" ...]
#
# Each trailing argument is one pekquitto configuration, as JVM options (default: one column,
# "-Dpekquitto.shards=1"); e.g.  bench/run-compare.sh -- "-Dpekquitto.shards=1" "-Dpekquitto.shards=2"
# (the `--` ends the script's own options, so that getopts does not read "-D..." as one).
# A configuration starting with `jar=PATH ` runs the broker jar PATH (no spaces in PATH) instead of
# ops/target/pekquitto.jar, so one run can compare two builds:
#   bench/run-compare.sh -l before,after -- "jar=/tmp/pekquitto-before.jar -Dpekquitto.shards=1" "-Dpekquitto.shards=1"
#   -s SCENARIOS  comma-separated subset of the scenario names below (default: all), run in the table's order
#   -l LABELS     comma-separated column names, one per configuration (default: pekquitto-1, pekquitto-2, ...)
#   -r ROUNDS     run every column ROUNDS times, the order reversed every other round (mosquitto, A, B;
#                 then B, A, mosquitto; ...) so that drift of the machine does not land on one column;
#                 the table shows each value's median and its min..max over the rounds [1]
#   -t            MQTT over TLS: a throwaway CA and server certificate for 127.0.0.1 (openssl, EC P-256),
#                 a TLS listener on every broker, and the load generator with --tls --cafile
#   -w            MQTT over WebSockets (with -t: wss): every broker gets a WebSocket listener and the load
#                 generator --websocket /mqtt (HTTP Upgrade, subprotocol mqtt, masked binary frames, one frame
#                 per flush). Mosquitto: `listener PORT 127.0.0.1` + `protocol websockets` (plus a TCP
#                 listener on another port that nothing uses: 2.0.11 refuses to start with WebSocket
#                 listeners only); pekquitto: `listeners = [ { host = "127.0.0.1", port = PORT,
#                 protocol = websocket, path = "/mqtt" } ]` (issue 12's listener settings)
#   -m            Mosquitto only, no pekquitto column (no broker jar needed): Mosquitto's figures alone, or
#                 a check of the load generator, e.g.  bench/run-compare.sh -m -w -s idle,fanin-qos1
#   -p            persistence on every broker: Mosquitto `persistence true` (its defaults: the database
#                 written every autosave_interval 1800 s and at shutdown), pekquitto `store.enabled = true`
#                 (store.durability from the column's options, default batch), each in a fresh directory,
#                 and the load generator's subscribers with persistent sessions (--persistent-subscribers)
# Without -p no broker keeps anything on disk (pekquitto store.enabled = false, Mosquitto's default).
# churn-qos0's extra client is a plain TCP socket: with -t or -w it is left out of the default scenarios.
# A configuration `hivemq` (optionally followed by JVM options: "hivemq -Xmx2g") is a column of HiveMQ
# Community Edition 2025.5, embedded (bench/hivemq-ce, built on first use; TCP only: not with -t, -w or
# -p), so that one run compares the three brokers:
#   bench/run-compare.sh -s fanin-qos1-16k,fanin-qos1-60k -l hivemq,pekquitto -- hivemq "-Dpekquitto.shards=1"
# A configuration `netty-floor` is a column of bench/floor/NettyFloor.java: the least an MQTT broker on one
# Netty event loop (epoll) does (CONNACK, PUBACK, PINGRESP, SUBACK, exact-topic forwarding), run from this
# tree's broker jar, which holds Netty; TCP only, and only the scenarios it can serve (connect-rate, latency):
#   bench/run-compare.sh -s connect-rate,latency -l floor,pekquitto -- netty-floor "-Dpekquitto.shards=1"
# One load-generator jar (this tree's bench/target/pekquitto-bench.jar) drives every column.
# Environment: MOSQUITTO (default /usr/sbin/mosquitto), JAVA (default java).
# Every broker listens on a free port of 127.0.0.1 only, runs under `timeout`, and is stopped after
# its scenarios; a trap kills whatever is left.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BENCH_JAR="$ROOT/bench/target/pekquitto-bench.jar"
BROKER_JAR="$ROOT/ops/target/pekquitto.jar"
MOSQUITTO="${MOSQUITTO:-/usr/sbin/mosquitto}"
JAVA="${JAVA:-java}"
DURATION=10
IDLE=10000
OUT=""
ONLY=""
LABELS=""
ROUNDS=1
TLS=""
WS=""
PERSIST=""
MOSQUITTO_ONLY=""
SCRIPT=run-compare
# shellcheck source=bench/common.sh
. "$ROOT/bench/common.sh"
while getopts "d:c:o:s:l:r:twpmh" opt; do
  case $opt in
    d) DURATION=$OPTARG ;;
    c) IDLE=$OPTARG ;;
    o) OUT=$OPTARG ;;
    s) ONLY=$OPTARG ;;
    l) LABELS=$OPTARG ;;
    r) ROUNDS=$OPTARG ;;
    t) TLS=1 ;;
    w) WS=1 ;;
    m) MOSQUITTO_ONLY=1 ;;
    p) PERSIST=1 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
CONFIGS=("$@")
if [ -n "$MOSQUITTO_ONLY" ]; then
  [ ${#CONFIGS[@]} -eq 0 ] && [ -z "$LABELS" ] || fail "-m runs Mosquitto only: no configurations or labels"
else
  [ ${#CONFIGS[@]} -eq 0 ] && CONFIGS=("-Dpekquitto.shards=1")
fi
[[ $DURATION =~ ^[0-9]+$ && $DURATION -gt 0 ]] || fail "-d wants whole seconds > 0: $DURATION"
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 1 && $ROUNDS -le 20 ]] || fail "-r wants 1..20 rounds: $ROUNDS"

# Each scenario: name, then the load generator's arguments (duration appended).
# Idle first (after the warm-up), so that memory is measured on a broker that has only warmed up.
SCENARIOS=(
  "idle|idle --connections $IDLE --hold 5"
  "fanin-qos0|fanin --qos 0 --max-lag 100"
  "fanin-qos1|fanin --qos 1 --max-lag 50"
  "fanin-qos2|fanin --qos 2 --max-lag 50"
  "slow-subscriber-qos1|fanin --qos 1 --max-lag 50 --slow-subscribers 1"
  "churn-qos0|fanin --qos 0 --max-lag 100 --subscription-churn 1000"
  "fanin-qos1-unthrottled|fanin --qos 1"
  "fanin-qos1-16k|fanin --qos 1 --max-lag 50 --payload 16000"
  "fanin-qos1-60k|fanin --qos 1 --max-lag 50 --payload 60000"
  "fanin-qos0-unthrottled|fanin --qos 0"
  "fanout|fanout --qos 0 --max-lag 100"
  "latency|latency --messages 20000 --warmup 2000"
  "connect-rate|connect-rate"
)
if [ -n "$ONLY" ]; then
  IFS=, read -r -a wanted <<<"$ONLY"
  for w in "${wanted[@]}"; do
    found=""
    for entry in "${SCENARIOS[@]}"; do [ "${entry%%|*}" = "$w" ] && found=1; done
    [ -n "$found" ] || fail "unknown scenario '$w'; known: $(printf '%s ' "${SCENARIOS[@]%%|*}")"
  done
  selected=()
  for entry in "${SCENARIOS[@]}"; do
    for w in "${wanted[@]}"; do [ "${entry%%|*}" = "$w" ] && selected+=("$entry"); done
  done
  SCENARIOS=("${selected[@]}")
fi
if [ -n "$TLS$WS" ]; then
  [[ ,$ONLY, == *,churn-qos0,* ]] && fail "churn-qos0's churning client speaks plain TCP only: not with -t or -w"
  kept=()
  for entry in "${SCENARIOS[@]}"; do [ "${entry%%|*}" = churn-qos0 ] || kept+=("$entry"); done
  SCENARIOS=("${kept[@]}")
fi
# Broker lifetime bound: warm-up, every scenario (its load, drain, connects) plus slack.
BROKER_TIMEOUT=$(( (${#SCENARIOS[@]} + 2) * (DURATION + 30) + 120 ))

column_names "$LABELS" ${#CONFIGS[@]}

# Each configuration: its broker jar (a leading `jar=PATH`) and the rest, its JVM options.
split_configs "$BROKER_JAR" "${CONFIGS[@]}"

WORK="$(mktemp -d /tmp/pekquitto-compare.XXXXXX)"
[ -z "$OUT" ] && OUT="$WORK"
mkdir -p "$OUT"
BROKER_PID=""
trap cleanup EXIT INT TERM

[ -f "$BENCH_JAR" ] || (cd "$ROOT" && ./mvnw -B -q -pl bench -am -DskipTests package)
HIVEMQ_DIR="$ROOT/bench/hivemq-ce"
if [[ " ${JARS[*]} " == *" hivemq "* ]]; then
  [ -z "$TLS$WS$PERSIST" ] || fail "the hivemq column is plain TCP without persistence: not with -t, -w or -p"
  [ -d "$HIVEMQ_DIR/target/lib" ] || "$ROOT/mvnw" -B -q -f "$HIVEMQ_DIR/pom.xml" package
fi
if [[ " ${JARS[*]} " == *" netty-floor "* ]]; then
  [ -z "$TLS$WS$PERSIST" ] || fail "the netty-floor column is plain TCP without persistence: not with -t, -w or -p"
fi
if [[ " ${JARS[*]} " == *" $BROKER_JAR "* || " ${JARS[*]} " == *" netty-floor "* ]] && [ ! -f "$BROKER_JAR" ]; then
  (cd "$ROOT" && ./mvnw -B -q -DskipTests package)
fi
command -v jq >/dev/null || { echo "run-compare: jq is needed" >&2; exit 2; }

# -t: certificates for this run only, and the load generator's TLS options.
BENCH_CLIENT_OPTS=""
[ -n "$PERSIST" ] && BENCH_CLIENT_OPTS="--persistent-subscribers"
if [ -n "$TLS" ]; then
  command -v openssl >/dev/null || fail "-t needs openssl"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=bench CA" \
      -keyout "$WORK/ca.key" -out "$WORK/ca.crt" 2>/dev/null
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
      -keyout "$WORK/server.key" -out "$WORK/server.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$WORK/server.ext"
  openssl x509 -req -in "$WORK/server.csr" -CA "$WORK/ca.crt" -CAkey "$WORK/ca.key" -CAcreateserial -days 2 \
      -extfile "$WORK/server.ext" -out "$WORK/server.crt" 2>/dev/null
  chmod 644 "$WORK"/*.key  # Mosquitto, started as root, reads them as its own user
  chmod 755 "$WORK"
  BENCH_CLIENT_OPTS="$BENCH_CLIENT_OPTS --tls --cafile $WORK/ca.crt"
fi
if [ -n "$WS" ]; then BENCH_CLIENT_OPTS="$BENCH_CLIENT_OPTS --websocket /mqtt"; fi
case "${TLS:+t}${WS:+w}" in t) TRANSPORT=tls ;; w) TRANSPORT=ws ;; tw) TRANSPORT=wss ;; *) TRANSPORT=tcp ;; esac

wait_port() { # port: wait until something accepts on 127.0.0.1:port (90 s at most: a loaded JVM starts slowly)
  for _ in $(seq 1 900); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    kill -0 "$BROKER_PID" 2>/dev/null || { echo "run-compare: the broker exited before listening" >&2; return 1; }
    sleep 0.1
  done
  echo "run-compare: nothing listens on port $1 after 90 s" >&2
  return 1
}

start_mosquitto() { # port
  local conf="$WORK/mosquitto.conf"
  # -w: the idle TCP listener 2.0.11 needs first, then the measured one (options below it apply to it).
  : >"$conf"
  if [ -n "$WS" ]; then printf 'listener %s 127.0.0.1\n' "$(free_port)" >>"$conf"; fi
  cat >>"$conf" <<CONF
listener $1 127.0.0.1
${WS:+protocol websockets}
allow_anonymous true
max_inflight_messages 20
max_queued_messages 1000
set_tcp_nodelay true
CONF
  if [ -n "$TLS" ]; then printf 'certfile %s\nkeyfile %s\n' "$WORK/server.crt" "$WORK/server.key" >>"$conf"; fi
  if [ -n "$PERSIST" ]; then
    rm -rf "$WORK/mosquitto-db" && mkdir -p "$WORK/mosquitto-db" && chmod 777 "$WORK/mosquitto-db" && chmod 755 "$WORK"
    printf 'persistence true\npersistence_location %s/\nautosave_interval 1800\n' "$WORK/mosquitto-db" >>"$conf"
  fi
  timeout "$BROKER_TIMEOUT" "$MOSQUITTO" -c "$conf" >"$RUN_DIR/mosquitto.log" 2>&1 &
  BROKER_PID=$!
}

start_pekquitto() { # port, jvm options (one string), broker jar, log name
  local conf="$WORK/pekquitto-$1.conf" listener="host = \"127.0.0.1\", port = $1"
  if [ -n "$WS" ]; then listener="$listener, protocol = websocket, path = \"/mqtt\""; fi
  if [ -n "$TLS" ]; then listener="$listener, tls { cert-file = \"$WORK/server.crt\", key-file = \"$WORK/server.key\" }"; fi
  echo "listeners = [ { $listener } ]" >"$conf"
  if [ -n "$PERSIST" ]; then
    rm -rf "$WORK/store-$4"
    echo "store { enabled = true, path = \"$WORK/store-$4\" }" >>"$conf"
  else
    echo "store.enabled = false" >>"$conf"
  fi
  # shellcheck disable=SC2086  # the options string is split on purpose
  timeout "$BROKER_TIMEOUT" "$JAVA" $2 -jar "$3" -c "$conf" >"$RUN_DIR/$4.log" 2>&1 &
  BROKER_PID=$!
}

start_hivemq() { # port, jvm options (one string), log name
  rm -rf "$WORK/hivemq-$3"
  # shellcheck disable=SC2086  # the options string is split on purpose
  timeout "$BROKER_TIMEOUT" "$JAVA" $2 -cp "$HIVEMQ_DIR/target/classes:$HIVEMQ_DIR/target/lib/*" \
      io.pekquitto.bench.hivemq.HiveMqCe "$1" "$WORK/hivemq-$3" >"$RUN_DIR/$3.log" 2>&1 &
  BROKER_PID=$!
}

start_netty_floor() { # port, jvm options (one string), log name
  # shellcheck disable=SC2086  # the options string is split on purpose
  timeout "$BROKER_TIMEOUT" "$JAVA" $2 -cp "$BROKER_JAR" "$ROOT/bench/floor/NettyFloor.java" "$1" epoll >"$RUN_DIR/$3.log" 2>&1 &
  BROKER_PID=$!
}

# The pid whose RSS counts: timeout's child (the broker itself).
broker_process() {
  local child
  child=$(pgrep -P "$BROKER_PID" | head -1)
  echo "${child:-$BROKER_PID}"
}

run_side() { # column index (-1: Mosquitto); writes into $RUN_DIR
  local name config port
  if [ "$1" -lt 0 ]; then
    name=mosquitto config=mosquitto
  else
    name=${NAMES[$1]} config=${OPTS[$1]}
  fi
  port=$(free_port)
  if [ "$1" -lt 0 ]; then
    start_mosquitto "$port"
  elif [ "${JARS[$1]}" = hivemq ]; then
    start_hivemq "$port" "$config" "$name"
  elif [ "${JARS[$1]}" = netty-floor ]; then
    start_netty_floor "$port" "$config" "$name"
  else
    start_pekquitto "$port" "$config" "${JARS[$1]}" "$name"
  fi
  if [ "$1" -lt 0 ]; then echo mosquitto; else echo "jar=${JARS[$1]} $config"; fi >"$RUN_DIR/$name.config"
  if ! wait_port "$port"; then
    cleanup
    BROKER_PID=""
    # An error in every cell of the column rather than cells that silently say n/a.
    for entry in "${SCENARIOS[@]}"; do
      echo "{\"scenario\":\"${entry%%|*}\",\"errors\":\"broker did not start, see $name.log\"}" >"$RUN_DIR/$name.${entry%%|*}.out"
    done
    echo "== $name: broker did not start${ROUND_TAG}" >&2
    return 0
  fi
  sleep 1
  local pid; pid=$(broker_process)
  # Warm-up, discarded: the JIT compiles the hot paths of a JVM broker, QoS 0 and QoS 1, then connects
  # (Mosquitto gets the same run). Connects come last and for 10 s: after the fan-ins, C2 was still compiling
  # the connect path for most of a 4 s warm-up and of the measured connect-rate that followed (a fifth of the
  # broker's CPU; BENCHMARKS.md, "The JIT in the connect rate"). Netty's floor forwards exact topics only:
  # round trips, then connects.
  if [ "$1" -ge 0 ] && [ "${JARS[$1]}" = netty-floor ]; then
    timeout 60 "$JAVA" -jar "$BENCH_JAR" latency --port "$port" --messages 5000 >"$RUN_DIR/$name.warmup.out" 2>&1 || true
  else
    # shellcheck disable=SC2086
    timeout 60 "$JAVA" -jar "$BENCH_JAR" fanin --qos 0 --max-lag 100 --port "$port" --duration 8 $BENCH_CLIENT_OPTS >"$RUN_DIR/$name.warmup.out" 2>&1 || true
    # shellcheck disable=SC2086
    timeout 60 "$JAVA" -jar "$BENCH_JAR" fanin --qos 1 --max-lag 50 --port "$port" --duration 5 $BENCH_CLIENT_OPTS >>"$RUN_DIR/$name.warmup.out" 2>&1 || true
  fi
  # shellcheck disable=SC2086
  timeout 60 "$JAVA" -jar "$BENCH_JAR" connect-rate --port "$port" --duration 10 $BENCH_CLIENT_OPTS >>"$RUN_DIR/$name.warmup.out" 2>&1 || true
  for entry in "${SCENARIOS[@]}"; do
    local scenario=${entry%%|*} args=${entry#*|} extra=""
    if [ "$scenario" = connect-rate ]; then extra="--broker-pid $pid"; fi
    if [ "$scenario" = idle ]; then
      extra="--broker-pid $pid"
      # A JVM broker: also its live heap after a full GC (jcmd), the figure per connection BENCHMARKS.md tracks.
      [ "$1" -ge 0 ] && extra="$extra --jcmd"
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "{\"scenario\":\"$scenario\",\"errors\":\"broker not running\"}" >"$RUN_DIR/$name.$scenario.out"
      echo "== $name $scenario: broker not running${ROUND_TAG}" >&2
      continue
    fi
    # shellcheck disable=SC2086  # the argument strings are split on purpose
    timeout $(( 3 * DURATION + 120 )) "$JAVA" -jar "$BENCH_JAR" $args --port "$port" --duration "$DURATION" \
        --label "$name" --json $extra $BENCH_CLIENT_OPTS >"$RUN_DIR/$name.$scenario.out" 2>&1 || true
    echo "== $(head -1 "$RUN_DIR/$name.$scenario.out")${ROUND_TAG}" >&2
    sleep 1
  done
  ps -o rss= -p "$pid" >"$RUN_DIR/$name.rss-end" 2>/dev/null || true
  cleanup
  BROKER_PID=""
  sleep 2
}

echo "run-compare: results in $OUT; MQTT over $TRANSPORT; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "$TRANSPORT" >"$OUT/transport"
COLUMNS_IN_ORDER=(-1 "${!CONFIGS[@]}")  # -1: Mosquitto
for round in $(seq 1 "$ROUNDS"); do
  # One round: the results straight in OUT; several: OUT/round-N each, read by compare-table.py.
  RUN_DIR="$OUT" ROUND_TAG=""
  if [ "$ROUNDS" -gt 1 ]; then RUN_DIR="$OUT/round-$round" ROUND_TAG=" (round $round of $ROUNDS)"; fi
  mkdir -p "$RUN_DIR"
  order=("${COLUMNS_IN_ORDER[@]}")
  if [ $((round % 2)) -eq 0 ]; then
    order=()
    for ((k = ${#COLUMNS_IN_ORDER[@]} - 1; k >= 0; k--)); do order+=("${COLUMNS_IN_ORDER[$k]}"); done
  fi
  for column in "${order[@]}"; do run_side "$column"; done
done
echo "run-compare: done; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

python3 "$ROOT/bench/compare-table.py" "$OUT" mosquitto "${NAMES[@]}"
