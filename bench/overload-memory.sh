#!/usr/bin/env bash
# Sustained overload, memory bounded: runs unthrottled fan-in (publishers only limited by the
# broker's PUBACKs, so they outrun the two subscribers) against pekquitto for a while, and samples
# the broker's live heap (after a full GC, jcmd) and RSS every few seconds. QoS 1 must lose nothing
# (the load generator checks) and the live heap must stay flat: the shards pause the publishers
# instead of queueing without bound (docs/shards-and-mesh.md, The data plane).
#
#   bench/overload-memory.sh [-q QOS] [-s SHARDS] [-t SECONDS]
# Needs ops/target/pekquitto.jar and bench/target/pekquitto-bench.jar (./mvnw -B -DskipTests package).
set -euo pipefail
cd "$(dirname "$0")/.."
QOS=1; SHARDS=2; SECONDS_TOTAL=60
while getopts "q:s:t:" opt; do
  case $opt in q) QOS=$OPTARG ;; s) SHARDS=$OPTARG ;; t) SECONDS_TOTAL=$OPTARG ;; *) exit 2 ;; esac
done
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
LOG=$(mktemp)
timeout $((SECONDS_TOTAL + 120)) java -Dpekquitto.shards="$SHARDS" -Dpekquitto.listeners.0.host=127.0.0.1 \
  -jar ops/target/pekquitto.jar -p "$PORT" >"$LOG" 2>&1 &
BROKER=$!
LOAD=""
trap 'kill $BROKER 2>/dev/null || true; [ -n "$LOAD" ] && kill $LOAD 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do grep -q listening "$LOG" && break; sleep 0.5; done
PID=$(pgrep -f "^java .*pekquitto.jar -p $PORT" | head -1)  # the JVM, not its `timeout` wrapper
sample() {
  local heap rss
  heap=$(jcmd "$PID" GC.run >/dev/null 2>&1; jcmd "$PID" GC.heap_info 2>/dev/null | awk '/garbage-first heap/ {for (i=1;i<=NF;i++) if ($i=="used") print $(i+1)}')
  rss=$(awk '/VmRSS/ {print $2}' /proc/"$PID"/status)
  echo "t=${1}s live-heap=${heap} rss=${rss}K"
}
sample 0
java -jar bench/target/pekquitto-bench.jar fanin --qos "$QOS" --port "$PORT" --duration "$SECONDS_TOTAL" &
LOAD=$!
for t in $(seq 10 10 "$SECONDS_TOTAL"); do sleep 10; sample "$t"; done
wait $LOAD || echo "load generator reported errors (exit $?)"
sample end
