#!/usr/bin/env bash
# Footprint of an empty broker: the RSS of Mosquitto and of pekquitto, each started alone, listening on
# a free port of 127.0.0.1, with no client, read from /proc/PID/status after SETTLE seconds. pekquitto
# runs with its store on (the runnable broker's default, ./data in a fresh directory), 1 and 2 shards,
# started as `java -jar ops/target/pekquitto.jar` and as `bin/pekquitto`; Mosquitto with a minimal
# configuration (a listener, anonymous clients). Prints a markdown table: the median of the rounds, and
# their range.
#
#   bench/footprint.sh [-s SETTLE_SECONDS] [-r ROUNDS] [-n] [--] ["PEKQUITTO_JAVA_OPTS" ...]
#
#   -s SECONDS  how long each broker idles before its RSS is read (default 5)
#   -r ROUNDS   runs of each row, 1..10 (default 3)
#   -n          also print, for bin/pekquitto with 1 shard, what the JVM commits by category
#               (-XX:NativeMemoryTracking=summary, jcmd VM.native_memory summary); what it does not
#               track (the RocksDB library, malloc outside the JVM, the JVM's own code) is RSS minus its total
# Each trailing argument adds two rows: bin/pekquitto with that PEKQUITTO_JAVA_OPTS, 1 and 2 shards,
# e.g.  bench/footprint.sh -- "-XX:TieredStopAtLevel=1"
# Environment: MOSQUITTO (default /usr/sbin/mosquitto), JAVA_HOME or java on the PATH. Every broker runs
# under `timeout` and is stopped after its reading; a trap stops whatever is left.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BROKER_JAR="$ROOT/ops/target/pekquitto.jar"
LAUNCHER="$ROOT/bin/pekquitto"
MOSQUITTO="${MOSQUITTO:-/usr/sbin/mosquitto}"
JAVA="java"
[ -n "${JAVA_HOME:-}" ] && JAVA="$JAVA_HOME/bin/java"
SETTLE=5
ROUNDS=3
NMT=""
SCRIPT=footprint
# shellcheck source=bench/common.sh
. "$ROOT/bench/common.sh"
while getopts "s:r:nh" opt; do
  case $opt in
    s) SETTLE=$OPTARG ;;
    r) ROUNDS=$OPTARG ;;
    n) NMT=1 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[[ $SETTLE =~ ^[0-9]+$ && $SETTLE -le 600 ]] || fail "-s wants whole seconds, at most 600: $SETTLE"
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 1 && $ROUNDS -le 10 ]] || fail "-r wants 1..10 rounds: $ROUNDS"
[ -f "$BROKER_JAR" ] || fail "no $BROKER_JAR: ./mvnw -B -DskipTests package"
[ -x "$MOSQUITTO" ] || fail "no Mosquitto at $MOSQUITTO"

WORK="$(mktemp -d /tmp/pekquitto-footprint.XXXXXX)"
BROKER_PID=""
trap 'cleanup; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
LIFETIME=$((SETTLE + 150))  # start (wait_port allows 120 s), settle, reading

# Each row: its label, then how to start it ("mosquitto", or "java"/"launcher" with shards and options).
ROWS=(
  "Mosquitto|mosquitto"
  "java -jar, 1 shard|java|1|"
  "java -jar, 2 shards|java|2|"
  "bin/pekquitto, 1 shard|launcher|1|"
  "bin/pekquitto, 2 shards|launcher|2|"
)
for opts in "$@"; do
  ROWS+=("bin/pekquitto $opts, 1 shard|launcher|1|$opts" "bin/pekquitto $opts, 2 shards|launcher|2|$opts")
done

# Starts row $1's broker on port $2 in directory $3 with extra JVM options $4, as BROKER_PID.
start_row() {
  local how shards opts
  IFS='|' read -r _ how shards opts <<<"$1"
  case $how in
    mosquitto)
      printf 'listener %s 127.0.0.1\nallow_anonymous true\n' "$2" >"$3/mosquitto.conf"
      (cd "$3" && exec timeout "$LIFETIME" "$MOSQUITTO" -c mosquitto.conf >broker.log 2>&1) &
      ;;
    java)
      # shellcheck disable=SC2086  # options, split on purpose
      (cd "$3" && exec timeout "$LIFETIME" "$JAVA" $4 -Dpekquitto.shards="$shards" -jar "$BROKER_JAR" -p "$2" \
        >broker.log 2>&1) &
      ;;
    launcher)
      (cd "$3" && PEKQUITTO_JAVA_OPTS="-Dpekquitto.shards=$shards $opts $4" \
        exec timeout "$LIFETIME" "$LAUNCHER" -p "$2" >broker.log 2>&1) &
      ;;
  esac
  BROKER_PID=$!
}

# The broker itself: timeout's child (bin/pekquitto execs the JVM, so it is the JVM).
broker_process() {
  local child
  child=$(pgrep -P "$BROKER_PID" | head -1)
  echo "${child:-$BROKER_PID}"
}

# Runs row $1 once with extra JVM options $2: its RSS in KiB into RSS. With $3 = nmt, saves the JVM's
# native memory summary in $WORK/nmt.txt.
measure() {
  local port dir pid
  port=$(free_port)
  dir=$(mktemp -d "$WORK/broker.XXXXXX")
  start_row "$1" "$port" "$dir" "$2"
  wait_port "$port" || { cat "$dir/broker.log" >&2; fail "row '${1%%|*}' did not listen"; }
  sleep "$SETTLE"
  pid=$(broker_process)
  RSS=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
  if [ "${3:-}" = nmt ]; then jcmd "$pid" VM.native_memory summary >"$WORK/nmt.txt"; fi
  cleanup
  BROKER_PID=""
  rm -rf "$dir"
}

mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

echo "footprint: $(nproc) cores; $("$JAVA" -version 2>&1 | head -1); $("$MOSQUITTO" -h 2>/dev/null | head -1 || true)" >&2
echo "| broker | RSS, MiB (median of $ROUNDS) | range, MiB |"
echo "|---|---:|---:|"
for row in "${ROWS[@]}"; do
  values=()
  for ((round = 1; round <= ROUNDS; round++)); do
    measure "$row" ""
    values+=("$RSS")
  done
  sorted=$(printf '%s\n' "${values[@]}" | sort -n)
  median=$(echo "$sorted" | awk -v n="$ROUNDS" 'NR == int((n + 1) / 2)')
  echo "| ${row%%|*} | $(mib "$median") | $(mib "$(echo "$sorted" | head -1)")..$(mib "$(echo "$sorted" | tail -1)") |"
done
if [ -n "$NMT" ]; then
  measure "bin/pekquitto, 1 shard|launcher|1|" "-XX:NativeMemoryTracking=summary" nmt
  echo
  echo "bin/pekquitto, 1 shard, with -XX:NativeMemoryTracking=summary: RSS $(mib "$RSS") MiB; the JVM's committed memory:"
  awk '/^Total|^-/ { sub(/reserved=[0-9]+KB, /, ""); print }' "$WORK/nmt.txt"
fi
