#!/usr/bin/env bash
# A bridge's forwarding rate and added latency, pekquitto's against Mosquitto's, side by side in one run
# (BENCHMARKS.md, "Bridges: pekquitto -> Mosquitto against Mosquitto -> Mosquitto"). One remote Mosquitto
# for the whole run; then, in each round, three columns:
#   direct            publishers and subscribers both on the remote: the path without a bridge (baseline)
#   mosquitto-bridge  a local Mosquitto with `connection bench` / `address 127.0.0.1:REMOTE` /
#                     `topic bench/# out QOS` / `remote_clientid mosquitto-bench`
#   pekquitto-bridge  pekquitto (the runnable jar, the JVM options below) with, in its -c file,
#                     bridges = [ { name = bench, addresses = ["127.0.0.1:REMOTE"], client-id = "pekquitto-bench",
#                                   topics = [ { pattern = "bench/#", direction = out, qos = QOS } ] } ]
# The load generator's publishers publish to the bridging broker (--port), its subscribers subscribe at the
# remote (--subscriber-port); every topic it uses is bench/<run>/..., which bench/# carries. A message
# crosses at the lower of its own QoS and the bridge's (both brokers), so one bridge at QoS 1 carries the
# QoS 0 fan-in at QoS 0 and the QoS 1 one at QoS 1.
#
#   bench/bridge-compare.sh [-d SECONDS] [-W SECONDS] [-r ROUNDS] [-q QOS] [-s SCENARIOS] [-o OUT_DIR]
#                           [--] ["[jar=PATH ]JVM_OPTS"]
#   -d SECONDS    load per scenario (10)
#   -W SECONDS    discarded warm-up through the bridge, per load (QoS 0 fan-in, QoS 1 fan-in, round trips) (5)
#   -r ROUNDS     every column ROUNDS times, each on a freshly started bridging broker, the order reversed
#                 every other round (direct, mosquitto-bridge, pekquitto-bridge; then the other way round);
#                 the table shows medians and min..max (1..20; 1)
#   -q QOS        the bridge's topic QoS, both brokers (0..2; 1)
#   -s SCENARIOS  comma-separated subset of fanin-qos0, fanin-qos1, latency (all)
#   -o OUT_DIR    results (a temporary directory)
# The argument after `--` is pekquitto's JVM options (default "-Dpekquitto.shards=1"), optionally led by
# `jar=PATH ` to run that broker jar instead of ops/target/pekquitto.jar.
# Before the clock starts for a column, a probe message published at the bridging broker must arrive at the
# remote (60 s at most), and the bridge's retained $SYS/broker/connection/+/state is recorded there, before
# and after the scenarios (OUT/<column>.bridge-state). Every broker listens on a free port of 127.0.0.1, runs
# under `timeout`, and is stopped after its column; a trap kills whatever is left.
# Environment: MOSQUITTO (default /usr/sbin/mosquitto), JAVA (default java); needs mosquitto_pub and
# mosquitto_sub (Debian's mosquitto-clients) for the probe.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BENCH_JAR="$ROOT/bench/target/pekquitto-bench.jar"
BROKER_JAR="$ROOT/ops/target/pekquitto.jar"
MOSQUITTO="${MOSQUITTO:-/usr/sbin/mosquitto}"
JAVA="${JAVA:-java}"
DURATION=10
WARMUP=5
ROUNDS=1
QOS=1
ONLY=""
OUT=""
SCRIPT=bridge-compare
# shellcheck source=bench/common.sh
. "$ROOT/bench/common.sh"
while getopts "d:W:r:q:s:o:h" opt; do
  case $opt in
    d) DURATION=$OPTARG ;;
    W) WARMUP=$OPTARG ;;
    r) ROUNDS=$OPTARG ;;
    q) QOS=$OPTARG ;;
    s) ONLY=$OPTARG ;;
    o) OUT=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -le 1 ] || fail "one pekquitto configuration at most, as one argument after --"
CONFIG="${1:--Dpekquitto.shards=1}"
[[ $DURATION =~ ^[0-9]+$ && $DURATION -gt 0 ]] || fail "-d wants whole seconds > 0: $DURATION"
[[ $WARMUP =~ ^[0-9]+$ && $WARMUP -gt 0 ]] || fail "-W wants whole seconds > 0: $WARMUP"
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 1 && $ROUNDS -le 20 ]] || fail "-r wants 1..20 rounds: $ROUNDS"
[[ $QOS =~ ^[012]$ ]] || fail "-q wants 0, 1 or 2: $QOS"
for tool in mosquitto_pub mosquitto_sub python3; do command -v "$tool" >/dev/null || fail "$tool is needed"; done
[ -x "$MOSQUITTO" ] || fail "no Mosquitto at $MOSQUITTO"

# Each scenario: name (compare-table.py's), then the load generator's arguments (ports and duration appended).
SCENARIOS=(
  "fanin-qos0|fanin --qos 0 --max-lag 100"
  "fanin-qos1|fanin --qos 1 --max-lag 50"
  "latency|latency --messages 20000 --warmup 2000"
)
if [ -n "$ONLY" ]; then
  IFS=, read -r -a wanted <<<"$ONLY"
  selected=()
  for entry in "${SCENARIOS[@]}"; do
    for w in "${wanted[@]}"; do [ "${entry%%|*}" = "$w" ] && selected+=("$entry"); done
  done
  [ ${#selected[@]} -eq ${#wanted[@]} ] || fail "unknown or repeated scenario in '$ONLY'; known: ${SCENARIOS[*]%%|*}"
  SCENARIOS=("${selected[@]}")
fi
COLUMNS=(direct mosquitto-bridge pekquitto-bridge)
# One column's bound: start, probe, warm-up, every scenario with its drain, stop; the remote's: every column's.
COLUMN_SECONDS=$(( 120 + 60 + 3 * (WARMUP + 40) + ${#SCENARIOS[@]} * (3 * DURATION + 120) ))
REMOTE_SECONDS=$(( ROUNDS * ${#COLUMNS[@]} * COLUMN_SECONDS + 60 ))

split_configs "$BROKER_JAR" "$CONFIG"
PEKQUITTO_JAR=${JARS[0]} PEKQUITTO_OPTS=${OPTS[0]}
[ "$PEKQUITTO_JAR" != hivemq ] && [ "$PEKQUITTO_JAR" != netty-floor ] || fail "a pekquitto configuration only"

WORK="$(mktemp -d /tmp/pekquitto-bridge-compare.XXXXXX)"
chmod 755 "$WORK"  # Mosquitto reads its configuration as the user it runs as
[ -z "$OUT" ] && OUT="$WORK"
mkdir -p "$OUT"
BROKER_PID="" REMOTE_PID=""
stop_all() {
  cleanup
  BROKER_PID=$REMOTE_PID cleanup
}
trap stop_all EXIT
trap 'stop_all; exit 130' INT TERM

[ -f "$BENCH_JAR" ] || (cd "$ROOT" && ./mvnw -B -q -pl bench -am -DskipTests package)
[ "$PEKQUITTO_JAR" != "$BROKER_JAR" ] || [ -f "$BROKER_JAR" ] || (cd "$ROOT" && ./mvnw -B -q -DskipTests package)

# The settings every Mosquitto gets, as run-compare.sh's: port $1. As root it stays root (`user`), as
# otherwise it would switch to the user mosquitto.
mosquitto_listener() {
  cat <<CONF
listener $1 127.0.0.1
allow_anonymous true
max_inflight_messages 20
max_queued_messages 1000
set_tcp_nodelay true
user $(id -un)
CONF
}

REMOTE_PORT=$(free_port)
mosquitto_listener "$REMOTE_PORT" >"$WORK/remote.conf"
timeout "$REMOTE_SECONDS" "$MOSQUITTO" -c "$WORK/remote.conf" >"$OUT/remote.log" 2>&1 &
REMOTE_PID=$!
BROKER_PID=$REMOTE_PID wait_port "$REMOTE_PORT" || fail "the remote Mosquitto did not start, see $OUT/remote.log"

# Starts the bridging broker of column $1 on port $2 as BROKER_PID, its log RUN_DIR/$1.log.
start_bridging() {
  if [ "$1" = mosquitto-bridge ]; then
    { mosquitto_listener "$2"
      printf 'connection bench\naddress 127.0.0.1:%s\nremote_clientid mosquitto-bench\ntopic bench/# out %s\n' "$REMOTE_PORT" "$QOS"
    } >"$WORK/$1.conf"
    echo "$("$MOSQUITTO" -h 2>&1 | head -1); bridge: topic bench/# out $QOS" >"$RUN_DIR/$1.config"
    timeout "$COLUMN_SECONDS" "$MOSQUITTO" -c "$WORK/$1.conf" >"$RUN_DIR/$1.log" 2>&1 &
  else
    cat >"$WORK/$1.conf" <<CONF
listeners = [ { host = "127.0.0.1", port = $2 } ]
store.enabled = false
bridges = [ { name = bench, addresses = ["127.0.0.1:$REMOTE_PORT"], client-id = "pekquitto-bench",
              topics = [ { pattern = "bench/#", direction = out, qos = $QOS } ] } ]
CONF
    echo "jar=$PEKQUITTO_JAR $PEKQUITTO_OPTS; bridge: pattern bench/#, direction out, qos $QOS" >"$RUN_DIR/$1.config"
    # shellcheck disable=SC2086  # the options string is split on purpose
    timeout "$COLUMN_SECONDS" "$JAVA" $PEKQUITTO_OPTS -jar "$PEKQUITTO_JAR" -c "$WORK/$1.conf" >"$RUN_DIR/$1.log" 2>&1 &
  fi
  BROKER_PID=$!
}

# Whether a message published at port $1 arrives at the remote: a subscriber there, and a QoS 0 probe
# published every 0.25 s until it has one (60 s at most).
probe_crosses() {
  local topic="bench/probe/$$-$RANDOM" sub _
  timeout 70 mosquitto_sub -h 127.0.0.1 -p "$REMOTE_PORT" -i "probe-sub-$$" -t "$topic" -C 1 -W 60 >/dev/null 2>&1 &
  sub=$!
  for _ in $(seq 1 240); do
    kill -0 "$sub" 2>/dev/null || break
    timeout 5 mosquitto_pub -h 127.0.0.1 -p "$1" -i "probe-pub-$$" -t "$topic" -m probe -q 0 >/dev/null 2>&1 || true
    sleep 0.25
  done
  wait "$sub"
}

# The bridge's retained state at port $1, with a label $2, appended to RUN_DIR/$3.bridge-state and shown.
bridge_state() {
  { printf '%s: ' "$2"
    timeout 5 mosquitto_sub -h 127.0.0.1 -p "$1" -i "state-$$" -t '$SYS/broker/connection/+/state' -v -C 1 -W 3 2>&1 \
      || echo "(none within 3 s)"
  } >>"$RUN_DIR/$3.bridge-state"
  echo "== $3 bridge state $(tail -1 "$RUN_DIR/$3.bridge-state")${ROUND_TAG}" >&2
}

# One column ($1) into RUN_DIR: its broker (none for direct), the probe, the warm-up, the scenarios.
run_column() {
  local name=$1 port scenario args entry reason=""
  if [ "$name" = direct ]; then
    port=$REMOTE_PORT
    echo "mosquitto (the remote): publishers and subscribers both on it, no bridge" >"$RUN_DIR/$name.config"
  else
    port=$(free_port)
    start_bridging "$name" "$port"
    if ! wait_port "$port"; then
      reason="the broker did not start"
    elif ! probe_crosses "$port"; then
      reason="no probe crossed the bridge within 60 s"
      bridge_state "$port" "no probe crossed" "$name"
    fi
    if [ -n "$reason" ]; then
      # An error in every cell of the column rather than cells that silently say n/a.
      for entry in "${SCENARIOS[@]}"; do
        echo "{\"scenario\":\"${entry%%|*}\",\"errors\":\"$reason, see $name.log\"}" >"$RUN_DIR/$name.${entry%%|*}.out"
      done
      echo "== $name: $reason${ROUND_TAG}" >&2
      cleanup
      BROKER_PID=""
      return 0
    fi
    bridge_state "$port" "before" "$name"
  fi
  local ports=(--port "$port" --subscriber-port "$REMOTE_PORT")
  # Warm-up, discarded, the same for every column: the JIT of a JVM broker compiles the bridge's paths.
  { timeout $((WARMUP + 60)) "$JAVA" -jar "$BENCH_JAR" fanin --qos 0 --max-lag 100 --duration "$WARMUP" "${ports[@]}" || true
    timeout $((WARMUP + 60)) "$JAVA" -jar "$BENCH_JAR" fanin --qos 1 --max-lag 50 --duration "$WARMUP" "${ports[@]}" || true
    timeout $((WARMUP + 40)) "$JAVA" -jar "$BENCH_JAR" latency --messages 1000000 --warmup 0 --duration "$WARMUP" "${ports[@]}" || true
  } >"$RUN_DIR/$name.warmup.out" 2>&1
  for entry in "${SCENARIOS[@]}"; do
    scenario=${entry%%|*} args=${entry#*|}
    if ! kill -0 "$REMOTE_PID" 2>/dev/null || { [ "$name" != direct ] && ! kill -0 "$BROKER_PID" 2>/dev/null; }; then
      echo "{\"scenario\":\"$scenario\",\"errors\":\"broker not running\"}" >"$RUN_DIR/$name.$scenario.out"
      echo "== $name $scenario: broker not running${ROUND_TAG}" >&2
      continue
    fi
    # shellcheck disable=SC2086  # the argument string is split on purpose
    timeout $((3 * DURATION + 120)) "$JAVA" -jar "$BENCH_JAR" $args "${ports[@]}" --duration "$DURATION" \
        --label "$name" --json >"$RUN_DIR/$name.$scenario.out" 2>&1 || true
    echo "== $(head -1 "$RUN_DIR/$name.$scenario.out")${ROUND_TAG}" >&2
    sleep 1
  done
  if [ "$name" != direct ]; then
    bridge_state "$port" "after" "$name"
    cleanup
    BROKER_PID=""
    sleep 2
  fi
}

echo "bridge-compare: results in $OUT; remote Mosquitto on 127.0.0.1:$REMOTE_PORT; bridge QoS $QOS; $(nproc) cores;" \
     "load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo tcp >"$OUT/transport"
for round in $(seq 1 "$ROUNDS"); do
  RUN_DIR="$OUT" ROUND_TAG=""
  if [ "$ROUNDS" -gt 1 ]; then RUN_DIR="$OUT/round-$round" ROUND_TAG=" (round $round of $ROUNDS)"; fi
  mkdir -p "$RUN_DIR"
  order=("${COLUMNS[@]}")
  if [ $((round % 2)) -eq 0 ]; then order=("${COLUMNS[2]}" "${COLUMNS[1]}" "${COLUMNS[0]}"); fi
  for column in "${order[@]}"; do run_column "$column"; done
done
echo "bridge-compare: done; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

python3 "$ROOT/bench/compare-table.py" --baseline direct "$OUT" mosquitto-bridge pekquitto-bridge
