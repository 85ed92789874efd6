#!/usr/bin/env bash
# The floors of Pekko IO and of Netty 4.2 (epoll and NIO) next to Mosquitto and pekquitto (one shard), on
# the scenarios where pekquitto is behind: connect-rate and latency. Each broker on its own port of
# 127.0.0.1, one after the other, ROUNDS times in alternating order; the bench tool's own lines are printed.
#   bench/floor/run-floor.sh [ROUNDS]
# NETTY_CP: the class path of NettyFloor.java (default: pekquitto's jar, once it holds Netty 4.2). From ~/.m2:
#   R=~/.m2/repository/io/netty V=4.2.18.Final
#   export NETTY_CP=$(for a in common buffer resolver transport codec-base transport-native-unix-common \
#     transport-classes-epoll; do printf '%s:' $R/netty-$a/$V/netty-$a-$V.jar; done)$R/netty-transport-native-epoll/$V/netty-transport-native-epoll-$V-linux-x86_64.jar
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BENCH="$ROOT/bench/target/pekquitto-bench.jar"
JAR="$ROOT/ops/target/pekquitto.jar"
NETTY_CP=${NETTY_CP:-$JAR}
ROUNDS=${1:-2}
if [ "$NETTY_CP" = "$JAR" ] && [ "$(unzip -l "$JAR" | grep -c -e 'io/netty/channel/epoll/EpollIoHandler.class' \
     -e 'META-INF/native/libnetty_transport_native_epoll_x86_64.so')" -lt 2 ]; then
  echo "run-floor: $JAR holds no Netty 4.2 with epoll's native library; set NETTY_CP (see the head of this script)" >&2; exit 2
fi
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
start() {  # name port
  case $1 in
    mosquitto) printf 'listener %s 127.0.0.1\nallow_anonymous true\n' "$2" >/tmp/floor-mosquitto.conf
               timeout 600 /usr/sbin/mosquitto -c /tmp/floor-mosquitto.conf >/dev/null 2>&1 & ;;
    pekko-floor) timeout 600 java -cp "$JAR" "$ROOT/bench/floor/PekkoIoFloor.java" "$2" >/dev/null 2>&1 & ;;
    netty-epoll) timeout 600 java -cp "$NETTY_CP" "$ROOT/bench/floor/NettyFloor.java" "$2" epoll >/dev/null 2>&1 & ;;
    netty-nio) timeout 600 java -cp "$NETTY_CP" "$ROOT/bench/floor/NettyFloor.java" "$2" nio >/dev/null 2>&1 & ;;
    pekquitto) timeout 600 java -Dpekquitto.shards=1 -Dpekquitto.listeners.0.host=127.0.0.1 \
                 -Dpekquitto.listeners.0.port="$2" -jar "$JAR" >/dev/null 2>&1 & ;;
  esac
  pids+=($!)
  sleep 4
  for _ in $(seq 1 300); do (exec 3<>"/dev/tcp/127.0.0.1/$2") 2>/dev/null && break; sleep 0.1; done  # 30 s at most
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
  order=(mosquitto pekko-floor netty-epoll netty-nio pekquitto)
  [ $((round % 2)) -eq 0 ] && order=(pekquitto netty-nio netty-epoll pekko-floor mosquitto)
  for name in "${order[@]}"; do port=$((port + 1)); run "$name" "$port"; done
done
