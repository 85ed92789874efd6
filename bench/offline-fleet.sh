#!/usr/bin/env bash
# What a fleet of offline clients with full queues costs: Mosquitto (persistence true) and pekquitto
# (store.enabled = true, one column per configuration), side by side in one run.
#
#   bench/offline-fleet.sh [-c CLIENTS] [-n MESSAGES] [-s PAYLOAD] [-l LABELS] [-o OUT_DIR] [--] ["JVM_OPTS" ...]
#
# For each broker, in a fresh store directory:
#   1. CLIENTS subscribers with persistent sessions (mosquitto_sub -c, QoS 1, default 1000), each on a
#      topic of its own (fleet/N), subscribe and leave;
#   2. mosquitto_pub -l publishes MESSAGES QoS 1 messages (default 1000) of PAYLOAD bytes (default 100,
#      every one different) to each topic: CLIENTS x MESSAGES messages wait in offline queues;
#   3. measured: the broker's RSS, and for pekquitto its live heap after a full GC (jcmd);
#   4. the first client comes back (mosquitto_sub -c -C MESSAGES) and must receive all of its messages.
# Each trailing argument is one pekquitto configuration as JVM options (default "-Dpekquitto.shards=1"),
# after `jar=PATH ` to run another build's jar than ops/target/pekquitto.jar (as in bench/run-compare.sh).
# Environment: MOSQUITTO (default /usr/sbin/mosquitto), JAVA (default java). Every broker listens on
# 127.0.0.1 only, under `timeout`; a trap kills whatever is left.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BROKER_JAR="$ROOT/ops/target/pekquitto.jar"
MOSQUITTO="${MOSQUITTO:-/usr/sbin/mosquitto}"
JAVA="${JAVA:-java}"
CLIENTS=1000
MESSAGES=1000
PAYLOAD=100
LABELS=""
OUT=""
SCRIPT=offline-fleet
# shellcheck source=bench/common.sh
. "$ROOT/bench/common.sh"
while getopts "c:n:s:l:o:h" opt; do
  case $opt in
    c) CLIENTS=$OPTARG ;;
    n) MESSAGES=$OPTARG ;;
    s) PAYLOAD=$OPTARG ;;
    l) LABELS=$OPTARG ;;
    o) OUT=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
CONFIGS=("$@")
[ ${#CONFIGS[@]} -eq 0 ] && CONFIGS=("-Dpekquitto.shards=1")
[[ $CLIENTS =~ ^[0-9]+$ && $CLIENTS -ge 1 && $CLIENTS -le 100000 ]] || fail "-c wants 1..100000 clients"
[[ $MESSAGES =~ ^[0-9]+$ && $MESSAGES -ge 1 && $MESSAGES -le 10000 ]] || fail "-n wants 1..10000 messages"
[[ $PAYLOAD =~ ^[0-9]+$ && $PAYLOAD -ge 10 && $PAYLOAD -le 10000 ]] || fail "-s wants 10..10000 bytes"
column_names "$LABELS" ${#CONFIGS[@]}
split_configs "$BROKER_JAR" "${CONFIGS[@]}"
for tool in mosquitto_pub mosquitto_sub jcmd; do command -v $tool >/dev/null || fail "$tool is needed"; done
[ -f "$BROKER_JAR" ] || (cd "$ROOT" && ./mvnw -B -q -DskipTests package)

WORK="$(mktemp -d /tmp/pekquitto-fleet.XXXXXX)"
chmod 755 "$WORK"  # Mosquitto, started as root, writes its database as its own user
[ -z "$OUT" ] && OUT="$WORK"
mkdir -p "$OUT"
BROKER_PID=""
trap cleanup EXIT INT TERM
seq -f "%0${PAYLOAD}.0f" 1 "$MESSAGES" >"$WORK/payloads"  # PAYLOAD bytes each, all different

start_broker() { # name, port, store dir, jvm options, broker jar
  start_persistent_broker "$@" "$MESSAGES" 1200
}

# The broker's process itself, not its `timeout` wrapper.
broker_process() {
  pgrep -P "$BROKER_PID" | head -1
}

run() { # name, jvm options, broker jar
  local name=$1 store="$WORK/store-$1" port pid rss heap="-" received size
  rm -rf "$store" && mkdir -p "$store"
  port=$(free_port)
  start_broker "$name" "$port" "$store" "${2:-}" "${3:-}"
  wait_port "$port" || fail "$name did not start: $(tail -5 "$OUT/$name.log")"
  for ((n = 1; n <= CLIENTS; n++)); do
    mosquitto_sub -p "$port" -c -i "fleet-$n" -q 1 -t "fleet/$n" -E
  done
  for ((n = 1; n <= CLIENTS; n++)); do
    mosquitto_pub -p "$port" -i "fleet-pub" -q 1 -t "fleet/$n" -l <"$WORK/payloads"
  done
  pid=$(broker_process)
  if [ "$name" != mosquitto ]; then
    jcmd "$pid" GC.run >/dev/null
    heap=$(jcmd "$pid" GC.heap_info | awk '/garbage-first heap/ {for (i=1;i<=NF;i++) if ($i=="used") print $(i+1)}')
  fi
  rss=$(awk '/VmRSS/ {print $2}' /proc/"$pid"/status)
  received=$(timeout 120 mosquitto_sub -p "$port" -c -i "fleet-1" -q 1 -t "fleet/1" -C "$MESSAGES" -W 60 | wc -l || true)
  size=$(du -sh "$store" | cut -f1)
  cleanup
  BROKER_PID=""
  printf '| %s | %s | %s | %d | %s | %d |\n' "$name" "$heap" "${rss}K" $((rss / 1024)) "$size" "$received" | tee -a "$OUT/table.md"
}

echo "$SCRIPT: $CLIENTS offline clients x $MESSAGES queued QoS 1 messages of $PAYLOAD bytes; results in $OUT; $(nproc) cores" >&2
printf '| broker | live heap | RSS | RSS (MiB) | store on disk | messages the first client received |\n|---|---:|---:|---:|---:|---:|\n' >"$OUT/table.md"
run mosquitto
for i in "${!CONFIGS[@]}"; do run "${NAMES[$i]}" "${OPTS[$i]}" "${JARS[$i]}"; done
cat "$OUT/table.md"
