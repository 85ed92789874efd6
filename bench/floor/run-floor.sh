#!/usr/bin/env bash
# Pekko IO's floor next to Mosquitto and pekquitto (one shard), on the scenarios where pekquitto is
# behind: connect-rate and latency. Each broker on its own port of 127.0.0.1, one after the other,
# ROUNDS times in alternating order; the bench tool's own lines are printed.
#   bench/floor/run-floor.sh [ROUNDS]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BENCH="$ROOT/bench/target/pekquitto-bench.jar"
JAR="$ROOT/ops/target/pekquitto.jar"
ROUNDS=${1:-2}
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
start() {  # name port
  case $1 in
    mosquitto) printf 'listener %s 127.0.0.1\nallow_anonymous true\n' "$2" >/tmp/floor-mosquitto.conf
               timeout 600 /usr/sbin/mosquitto -c /tmp/floor-mosquitto.conf >/dev/null 2>&1 & ;;
    floor) timeout 600 java -cp "$JAR" "$ROOT/bench/floor/PekkoIoFloor.java" "$2" >/dev/null 2>&1 & ;;
    pekquitto) timeout 600 java -Dpekquitto.shards=1 -Dpekquitto.listeners.0.host=127.0.0.1 \
                 -Dpekquitto.listeners.0.port="$2" -jar "$JAR" >/dev/null 2>&1 & ;;
  esac
  pids+=($!)
  sleep 4
}
run() {  # name port
  start "$1" "$2"
  timeout 60 java -jar "$BENCH" connect-rate --port "$2" --duration 4 >/dev/null 2>&1 || true  # warm-up
  timeout 60 java -jar "$BENCH" latency --port "$2" --messages 5000 --warmup 1000 >/dev/null 2>&1 || true
  echo "$1: $(timeout 60 java -jar "$BENCH" connect-rate --port "$2" --duration 8 2>&1 | tail -1)"
  echo "$1: $(timeout 120 java -jar "$BENCH" latency --port "$2" --messages 20000 --warmup 2000 2>&1 | tail -1)"
  kill "${pids[-1]}" 2>/dev/null || true
  sleep 2
}
port=18900
for round in $(seq 1 "$ROUNDS"); do
  order=(mosquitto floor pekquitto)
  [ $((round % 2)) -eq 0 ] && order=(pekquitto floor mosquitto)
  for name in "${order[@]}"; do port=$((port + 1)); run "$name" "$port"; done
done
