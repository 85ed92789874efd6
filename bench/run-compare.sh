#!/usr/bin/env bash
# Runs the same load-generator scenarios against Mosquitto and against pekquitto (one column per
# pekquitto configuration), side by side in one run, and prints a markdown table with each value and
# its ratio to Mosquitto's.
#
#   bench/run-compare.sh [-d SECONDS] [-c IDLE_CONNECTIONS] [-o OUT_DIR] [-s SCENARIOS] [-l LABELS] [--] ["JVM_OPTS" ...]
#
# Each trailing argument is one pekquitto configuration, as JVM options (default: one column,
# "-Dpekquitto.shards=1"); e.g.  bench/run-compare.sh -- "-Dpekquitto.shards=1" "-Dpekquitto.shards=2"
# (the `--` ends the script's own options, so that getopts does not read "-D..." as one).
# A configuration that starts with "jar=PATH " runs that broker jar instead of ops/target/pekquitto.jar,
# to compare two builds in one run: -- "jar=/tmp/before.jar -Dpekquitto.shards=1" "-Dpekquitto.shards=1".
# -s runs only the named scenarios (comma-separated, e.g. -s fanin-qos1,slow-subscriber-qos1);
# -l names the pekquitto columns (comma-separated, e.g. -l before,after; default pekquitto-1, ...).
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
while getopts "d:c:o:s:l:h" opt; do
  case $opt in
    d) DURATION=$OPTARG ;;
    c) IDLE=$OPTARG ;;
    o) OUT=$OPTARG ;;
    s) ONLY=",$OPTARG," ;;
    l) LABELS=$OPTARG ;;
    *) sed -n '2,16p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
CONFIGS=("$@")
[ ${#CONFIGS[@]} -eq 0 ] && CONFIGS=("-Dpekquitto.shards=1")

WORK="$(mktemp -d /tmp/pekquitto-compare.XXXXXX)"
[ -z "$OUT" ] && OUT="$WORK"
mkdir -p "$OUT"
BROKER_PID=""
cleanup() {
  if [ -n "$BROKER_PID" ] && kill -0 "$BROKER_PID" 2>/dev/null; then
    kill "$BROKER_PID" 2>/dev/null || true
    sleep 1
    kill -9 "$BROKER_PID" 2>/dev/null || true
  fi
}
trap cleanup EXIT INT TERM

[ -f "$BENCH_JAR" ] || (cd "$ROOT" && mvn -B -q -pl bench -am -DskipTests package)
[ -f "$BROKER_JAR" ] || (cd "$ROOT" && mvn -B -q -DskipTests package)
command -v jq >/dev/null || { echo "run-compare: jq is needed" >&2; exit 2; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

wait_port() { # port: wait until something accepts on 127.0.0.1:port (90 s at most: a loaded JVM starts slowly)
  for _ in $(seq 1 900); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    kill -0 "$BROKER_PID" 2>/dev/null || { echo "run-compare: the broker exited before listening" >&2; return 1; }
    sleep 0.1
  done
  echo "run-compare: nothing listens on port $1 after 90 s" >&2
  return 1
}

# Broker lifetime bound: every scenario plus slack.
BROKER_TIMEOUT=$(( 12 * DURATION + 300 ))
# Each scenario: name, then the load generator's arguments (duration appended).
# Idle first (after the warm-up), so that memory is measured on a broker that has only warmed up.
SCENARIOS=(
  "idle|idle --connections $IDLE --hold 5"
  "fanin-qos0|fanin --qos 0 --max-lag 100"
  "fanin-qos1|fanin --qos 1 --max-lag 50"
  "fanin-qos2|fanin --qos 2 --max-lag 50"
  "fanin-qos1-unthrottled|fanin --qos 1"
  "slow-subscriber-qos1|fanin --qos 1 --max-lag 50 --slow-subscribers 1"
  "churn-qos0|fanin --qos 0 --max-lag 100 --subscription-churn 1000"
  "fanin-qos0-unthrottled|fanin --qos 0"
  "fanout|fanout --qos 0 --max-lag 100"
  "latency|latency --messages 20000 --warmup 2000"
  "connect-rate|connect-rate"
)

start_mosquitto() { # port
  local conf="$WORK/mosquitto.conf"
  cat >"$conf" <<CONF
listener $1 127.0.0.1
allow_anonymous true
max_inflight_messages 20
max_queued_messages 1000
set_tcp_nodelay true
CONF
  timeout "$BROKER_TIMEOUT" "$MOSQUITTO" -c "$conf" >"$OUT/mosquitto.log" 2>&1 &
  BROKER_PID=$!
}

start_pekquitto() { # port, jvm options (one string, optionally starting with "jar=PATH "), log name
  local conf="$WORK/pekquitto-$1.conf" jar="$BROKER_JAR" options=$2
  if [[ $options == jar=* ]]; then
    jar=${options%% *}; jar=${jar#jar=}
    [[ $options == *" "* ]] && options=${options#* } || options=""
  fi
  [ -f "$jar" ] || { echo "run-compare: no broker jar at $jar" >&2; return 1; }
  echo "listeners = [ { host = \"127.0.0.1\", port = $1 } ]" >"$conf"
  # shellcheck disable=SC2086  # the options string is split on purpose
  timeout "$BROKER_TIMEOUT" "$JAVA" $options -jar "$jar" -c "$conf" >"$OUT/$3.log" 2>&1 &
  BROKER_PID=$!
}

# The pid whose RSS counts: timeout's child (the broker itself).
broker_process() {
  local child
  child=$(pgrep -P "$BROKER_PID" | head -1)
  echo "${child:-$BROKER_PID}"
}

run_side() { # column name, "mosquitto" or pekquitto JVM options
  local name=$1 config=$2 port
  port=$(free_port)
  if [ "$config" = mosquitto ]; then start_mosquitto "$port"; else start_pekquitto "$port" "$config" "$name"; fi
  if ! wait_port "$port"; then
    cleanup
    BROKER_PID=""
    return 0
  fi
  sleep 1
  local pid; pid=$(broker_process)
  echo "$config" >"$OUT/$name.config"
  # Warm-up, discarded: a JVM broker compiles its hot paths first (Mosquitto gets the same run).
  # Warm-up: the JIT compiles the hot paths of a JVM broker (QoS 0 and QoS 1 paths both).
  timeout 60 "$JAVA" -jar "$BENCH_JAR" fanin --qos 0 --max-lag 100 --port "$port" --duration 8 >"$OUT/$name.warmup.out" 2>&1 || true
  timeout 60 "$JAVA" -jar "$BENCH_JAR" fanin --qos 1 --max-lag 50 --port "$port" --duration 5 >>"$OUT/$name.warmup.out" 2>&1 || true
  for entry in "${SCENARIOS[@]}"; do
    local scenario=${entry%%|*} args=${entry#*|} extra=""
    [ -n "$ONLY" ] && [[ $ONLY != *",$scenario,"* ]] && continue
    if [ "$scenario" = idle ]; then
      extra="--broker-pid $pid"
      # A JVM broker: also its live heap after a full GC (jcmd), the figure DESIGN.md budgets.
      [ "$config" != mosquitto ] && extra="$extra --jcmd"
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "{\"scenario\":\"$scenario\",\"errors\":\"broker not running\"}" >"$OUT/$name.$scenario.out"
      echo "== $name $scenario: broker not running" >&2
      continue
    fi
    # shellcheck disable=SC2086  # the argument strings are split on purpose
    timeout $(( 3 * DURATION + 120 )) "$JAVA" -jar "$BENCH_JAR" $args --port "$port" --duration "$DURATION" \
        --label "$name" --json $extra >"$OUT/$name.$scenario.out" 2>&1 || true
    echo "== $(head -1 "$OUT/$name.$scenario.out")" >&2
    sleep 1
  done
  ps -o rss= -p "$pid" >"$OUT/$name.rss-end" 2>/dev/null || true
  cleanup
  BROKER_PID=""
  sleep 2
}

echo "run-compare: results in $OUT; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
COLUMN_NAMES=(mosquitto)
run_side mosquitto mosquitto
IFS=, read -r -a LABEL_LIST <<<"$LABELS"
for i in "${!CONFIGS[@]}"; do
  name=${LABEL_LIST[$i]:-pekquitto-$((i + 1))}
  COLUMN_NAMES+=("$name")
  run_side "$name" "${CONFIGS[$i]}"
done
echo "run-compare: done; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

python3 "$ROOT/bench/compare-table.py" "$OUT" "${COLUMN_NAMES[@]}"
