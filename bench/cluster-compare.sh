#!/bin/bash
# A cluster against one node (BENCHMARKS.md, "A cluster of three nodes against one node"): one pekquitto node
# alone (1 shard, no store), then three nodes of a cluster on this machine (1 shard each), with the publishers on
# the first node and the subscribers on the second (--subscriber-port), and again all on the first. QoS 1 fan-in
# under flow control (--max-lag 50), QoS 1 round trips, and a persistent session taken over again and again
# (alone: on the same node; in the cluster: alternately on the first and second node).
# Build first: ./mvnw -B -DskipTests package.
#   bench/cluster-compare.sh
set -u
cd "$(dirname "$0")/.."
J=$PWD/ops/target/pekquitto.jar
B=$PWD/bench/target/pekquitto-bench.jar
start() { # dir port cport
  rm -rf /tmp/cb$1; mkdir -p /tmp/cb$1
  if [ "$3" = "0" ]; then
    printf 'listeners = [{ host = "127.0.0.1", port = %s }]\nshards = 1\nstore.enabled = false\n' $2 > /tmp/cb$1/p.conf
  else
    printf 'listeners = [{ host = "127.0.0.1", port = %s }]\nshards = 1\nstore.enabled = false\ncluster { enabled = true, port = %s, seed-nodes = ["127.0.0.1:25541"] }\n' $2 $3 > /tmp/cb$1/p.conf
  fi
  (cd /tmp/cb$1 && exec java -jar $J -c p.conf > log 2>&1) &
}
waitlog() { for i in $(seq 1 300); do grep -q "$2" /tmp/cb$1/log 2>/dev/null && return 0; sleep 0.1; done; echo "no '$2' in cb$1"; }
run() { java -jar $B "$@" --json 2>/dev/null | tail -1; }
echo "== one node"
start 1 19001 0; waitlog 1 "listening"
sleep 2
run fanin --port 19001 --qos 1 --max-lag 50 --duration 8 --label "one node"
run latency --port 19001 --messages 10000 --label "one node"
run takeover --port 19001 --takeovers 300 --label "one node"
pkill -f "java -jar $J -c p.conf"; sleep 2
echo "== three nodes, across"
start 2 19002 25541; sleep 1; start 3 19003 25542; start 4 19004 25543
waitlog 2 "Mesh: 2 shards"; waitlog 3 "Mesh: 2 shards"; waitlog 4 "Mesh: 2 shards"
sleep 2
run fanin --port 19002 --subscriber-port 19003 --qos 1 --max-lag 50 --duration 8 --label "across three nodes"
run latency --port 19002 --subscriber-port 19003 --messages 10000 --label "across three nodes"
run takeover --port 19002 --subscriber-port 19003 --takeovers 300 --label "across three nodes"
run fanin --port 19002 --qos 1 --max-lag 50 --duration 8 --label "three nodes, same node"
run takeover --port 19002 --takeovers 300 --label "three nodes, same node"
pkill -f "java -jar $J -c p.conf"; sleep 1
