#!/usr/bin/env bash
# Memory per idle connection of the floors: for each NAME (netty-epoll, netty-nio, pekko-floor, mosquitto),
# a fresh broker on its own port of 127.0.0.1, its live heap (none for Mosquitto) (`jcmd GC.class_histogram`, which collects first) and
# RSS read before and while `bench idle` holds COUNT connections (CONNECTed, then idle), the difference
# divided by COUNT. Prints the bench tool's own lines and each reading; the histograms stay in /tmp.
#   bench/floor/floor-memory.sh [COUNT] [NAME...]      (NETTY_CP as for run-floor.sh)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BENCH="$ROOT/bench/target/pekquitto-bench.jar"
JAR="$ROOT/ops/target/pekquitto.jar"
NETTY_CP=${NETTY_CP:-$JAR}
COUNT=${1:-10000}
shift || true
[ $# -gt 0 ] || set -- netty-epoll netty-nio
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
heap() { [ "$name" = mosquitto ] && { echo 0; return; }; jcmd "$1" GC.class_histogram >"$2"; awk '/^Total/ { print $3 }' "$2"; }
rss() { awk '/^VmRSS/ { print $2 * 1024 }' "/proc/$1/status"; }
port=18990
for name in "$@"; do
  port=$((port + 1))
  case $name in
    netty-epoll) timeout 300 java -cp "$NETTY_CP" "$ROOT/bench/floor/NettyFloor.java" "$port" epoll >/dev/null 2>&1 & ;;
    netty-nio) timeout 300 java -cp "$NETTY_CP" "$ROOT/bench/floor/NettyFloor.java" "$port" nio >/dev/null 2>&1 & ;;
    pekko-floor) timeout 300 java -cp "$JAR" "$ROOT/bench/floor/PekkoIoFloor.java" "$port" >/dev/null 2>&1 & ;;
    mosquitto) printf 'listener %s 127.0.0.1\nallow_anonymous true\nmax_connections -1\n' "$port" >/tmp/floor-memory-mosquitto.conf
               timeout 300 /usr/sbin/mosquitto -c /tmp/floor-memory-mosquitto.conf >/dev/null 2>&1 & ;;
    *) echo "floor-memory: no floor $name" >&2; exit 2 ;;
  esac
  pids+=($!)
  for _ in $(seq 1 600); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done  # 60 s at most
  pid=$(pgrep -P "${pids[-1]}")
  sleep 2
  h0=$(heap "$pid" "/tmp/floor-memory-$name-before.txt"); r0=$(rss "$pid")
  timeout 300 java -jar "$BENCH" idle --port "$port" --connections "$COUNT" --hold 20 2>&1 | sed "s/^/$name: /" &
  idle=$!
  for _ in $(seq 1 600); do  # until all are established, 120 s at most
    [ "$(ss -Htn state established "( sport = :$port )" | wc -l)" -ge "$COUNT" ] && break; sleep 0.2
  done
  sleep 3
  h1=$(heap "$pid" "/tmp/floor-memory-$name-after.txt"); r1=$(rss "$pid")
  established=$(ss -Htn state established "( sport = :$port )" | wc -l)
  awk -v n="$name" -v c="$established" -v h0="$h0" -v h1="$h1" -v r0="$r0" -v r1="$r1" 'BEGIN {
    if (n != "mosquitto") printf "%s: %d connections: live heap %.0f -> %.0f KiB, %.2f KiB per connection\n", n, c, h0 / 1024, h1 / 1024, (h1 - h0) / 1024 / c
    printf "%s: %d connections: RSS %.0f -> %.0f KiB, %.2f KiB per connection\n", n, c, r0 / 1024, r1 / 1024, (r1 - r0) / 1024 / c }'
  wait "$idle" || true
  kill "${pids[-1]}" 2>/dev/null || true
  sleep 2
done
