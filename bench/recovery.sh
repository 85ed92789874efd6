#!/usr/bin/env bash
# How long a broker takes to come back with a large offline queue: Mosquitto (persistence true) and
# pekquitto (store.enabled = true, one column per configuration), side by side in one run.
#
#   bench/recovery.sh [-n MESSAGES] [-l LABELS] [-o OUT_DIR] [--] ["JVM_OPTS" ...]
#
# For each broker, in a fresh store directory:
#   1. a subscriber with a persistent session (mosquitto_sub -c, QoS 1) subscribes and leaves;
#   2. mosquitto_pub -l publishes MESSAGES QoS 1 messages (default 100000), queued for it;
#   3. the broker is stopped with SIGTERM (Mosquitto writes its database at shutdown: with its default
#      autosave_interval 1800 s, a kill -9 would lose the queue) and started again on the same store;
#   4. timed from that start: until the port accepts ("listening"), and until the subscriber, back
#      with its session (mosquitto_sub -c -C MESSAGES), has received every message ("drained").
# Each trailing argument is one pekquitto configuration as JVM options (default "-Dpekquitto.shards=1"),
# after `jar=PATH ` to run another build's jar than ops/target/pekquitto.jar (as in bench/run-compare.sh).
# Environment: MOSQUITTO (default /usr/sbin/mosquitto), JAVA (default java). Every broker listens on
# 127.0.0.1 only, under `timeout`; a trap kills whatever is left.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BROKER_JAR="$ROOT/ops/target/pekquitto.jar"
MOSQUITTO="${MOSQUITTO:-/usr/sbin/mosquitto}"
JAVA="${JAVA:-java}"
MESSAGES=100000
LABELS=""
OUT=""
SCRIPT=recovery
# shellcheck source=bench/common.sh
. "$ROOT/bench/common.sh"
while getopts "n:l:o:h" opt; do
  case $opt in
    n) MESSAGES=$OPTARG ;;
    l) LABELS=$OPTARG ;;
    o) OUT=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
CONFIGS=("$@")
[ ${#CONFIGS[@]} -eq 0 ] && CONFIGS=("-Dpekquitto.shards=1")
[[ $MESSAGES =~ ^[0-9]+$ && $MESSAGES -gt 0 && $MESSAGES -le 10000000 ]] || fail "-n wants 1..10000000 messages"
column_names "$LABELS" ${#CONFIGS[@]}
split_configs "$BROKER_JAR" "${CONFIGS[@]}"
for tool in mosquitto_pub mosquitto_sub; do command -v $tool >/dev/null || fail "$tool is needed (apt-get install mosquitto-clients)"; done
[ -f "$BROKER_JAR" ] || (cd "$ROOT" && ./mvnw -B -q -DskipTests package)

WORK="$(mktemp -d /tmp/pekquitto-recovery.XXXXXX)"
chmod 755 "$WORK"  # Mosquitto, started as root, writes its database as its own user
[ -z "$OUT" ] && OUT="$WORK"
mkdir -p "$OUT"
BROKER_PID=""
trap cleanup EXIT INT TERM
now_ms() { date +%s%3N; }
# Stops the broker as an operator would (SIGTERM to the broker under `timeout`), waiting for it to exit.
stop_broker() {
  local child
  child=$(pgrep -P "$BROKER_PID" | head -1 || true)
  kill "${child:-$BROKER_PID}" 2>/dev/null || true
  wait "$BROKER_PID" 2>/dev/null || true
  BROKER_PID=""
}

start_broker() { # name, port, store dir, jvm options, broker jar
  start_persistent_broker "$@" $((MESSAGES + 1000)) 600
}

run() { # name, jvm options, broker jar
  local name=$1 store="$WORK/store-$1" port started listening drained received
  rm -rf "$store" && mkdir -p "$store"
  port=$(free_port)
  start_broker "$name" "$port" "$store" "${2:-}" "${3:-}"
  wait_port "$port" || fail "$name did not start: $(tail -5 "$OUT/$name.log")"
  mosquitto_sub -p "$port" -c -i "recovery-$name" -q 1 -t recovery/queue -E
  # In runs of 10,000 lines: mosquitto_pub 2.0.11 -l drops what it has not sent when stdin ends early
  # (100,000 lines in one run reached no broker whole).
  for ((from = 1; from <= MESSAGES; from += 10000)); do
    seq "$from" $((from + 9999 < MESSAGES ? from + 9999 : MESSAGES)) \
        | mosquitto_pub -p "$port" -i "recovery-pub-$name" -q 1 -t recovery/queue -l
  done
  stop_broker
  local size; size=$(du -sh "$store" | cut -f1)
  started=$(now_ms)
  start_broker "$name" "$port" "$store" "${2:-}" "${3:-}"
  wait_port "$port" || fail "$name did not start again: $(tail -5 "$OUT/$name.log")"
  listening=$(now_ms)
  received=$(timeout 300 mosquitto_sub -p "$port" -c -i "recovery-$name" -q 1 -t recovery/queue -C "$MESSAGES" -W 120 | wc -l || true)
  drained=$(now_ms)
  stop_broker
  printf '| %s | %s | %d | %d | %d |\n' "$name" "$size" $((listening - started)) $((drained - started)) "$received" | tee -a "$OUT/table.md"
}

echo "recovery: $MESSAGES queued QoS 1 messages; results in $OUT; $(nproc) cores" >&2
printf '| broker | store on disk | listening after (ms) | drained after (ms) | messages received |\n|---|---:|---:|---:|---:|\n' >"$OUT/table.md"
run mosquitto
for i in "${!CONFIGS[@]}"; do run "${NAMES[$i]}" "${OPTS[$i]}" "${JARS[$i]}"; done
cat "$OUT/table.md"
