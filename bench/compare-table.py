#!/usr/bin/env python3
"""Prints run-compare.sh's results as a markdown table: each value and its ratio to Mosquitto's.

usage: compare-table.py OUT_DIR mosquitto pekquitto-1 [pekquitto-2 ...]
"""
import json
import sys
from pathlib import Path

out, columns = Path(sys.argv[1]), sys.argv[2:]

ROWS = [  # label, scenario, key, unit, higher_is_better
    ("fan-in QoS 0, 10->2, msgs/s received", "fanin-qos0", "received_per_s", "", True),
    ("fan-in QoS 1, 10->2, msgs/s received", "fanin-qos1", "received_per_s", "", True),
    ("fan-in QoS 2, 10->2, msgs/s received", "fanin-qos2", "received_per_s", "", True),
    ("fan-in QoS 1 unthrottled, msgs/s received", "fanin-qos1-unthrottled", "received_per_s", "", True),
    ("fan-in QoS 0 unthrottled, msgs/s received", "fanin-qos0-unthrottled", "received_per_s", "", True),
    ("fan-in QoS 1 + 1 subscriber that never reads, msgs/s published", "slow-subscriber-qos1", "published_per_s", "", True),
    ("fan-in QoS 1 + 1 subscriber that never reads, msgs/s received", "slow-subscriber-qos1", "received_per_s", "", True),
    ("fan-in QoS 0 + 1,000 subscription changes/s elsewhere, msgs/s received", "churn-qos0", "received_per_s", "", True),
    ("fan-out QoS 0, 1->100, deliveries/s", "fanout", "received_per_s", "", True),
    ("QoS 1 PUBLISH->PUBACK p50, us", "latency", "puback_p50_us", "", False),
    ("QoS 1 PUBLISH->PUBACK p99, us", "latency", "puback_p99_us", "", False),
    ("QoS 1 publish->delivery p50, us", "latency", "delivery_p50_us", "", False),
    ("QoS 1 publish->delivery p99, us", "latency", "delivery_p99_us", "", False),
    ("connects/s (connect, CONNACK, DISCONNECT; 8 at once)", "connect-rate", "connects_per_s", "", True),
    ("idle connections: connects/s", "idle", "connects_per_s", "", True),
    ("idle connections: broker RSS per connection, KiB", "idle", "rss_per_connection_kib", "", False),
    ("idle connections: live heap per connection after full GC, KiB", "idle", "heap_per_connection_kib", "", False),
]


def load(column, scenario):
    path = out / f"{column}.{scenario}.out"
    if not path.exists():
        return None
    for line in reversed(path.read_text().splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                pass
    return {"errors": (path.read_text().strip().splitlines() or ["no output"])[0]}


def cell(result, key):
    if result is None or key not in result:
        # A value the scenario does not produce for this broker (live heap: JVM brokers only) is n/a.
        return None, "error" if result and result.get("errors") else "n/a"
    value = result[key]
    text = f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.2f}"
    notes = []
    if result.get("lost"):
        notes.append(f"lost {result['lost']:,}")
    if result.get("failed"):
        notes.append(f"{result['failed']:,} failed")
    if result.get("connected") is not None and result.get("connected") != result.get("connections"):
        notes.append(f"{result['connected']:,} of {result['connections']:,} connected")
    if result.get("errors") and not result.get("lost"):
        notes.append("error")
    return value, text + (f" ({', '.join(notes)})" if notes else "")


header = ["metric"]
for c in columns:
    header.append(c)
    if c != columns[0]:
        header.append(f"{c} / {columns[0]}")
print("| " + " | ".join(header) + " |")
print("|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|")
for label, scenario, key, _, higher in ROWS:
    if all(load(c, scenario) is None for c in columns):
        continue  # not run (run-compare.sh -s)
    base, base_text = cell(load(columns[0], scenario), key)
    row = [label, base_text]
    for c in columns[1:]:
        value, text = cell(load(c, scenario), key)
        row.append(text)
        row.append(f"{value / base:.2f}" if value is not None and base else "-")
    print("| " + " | ".join(row) + " |")
print()
print("Ratios are pekquitto / Mosquitto: above 1 is better for rates, below 1 is better for latency and memory.")
errors = []
for c in columns:
    for _, scenario, _, _, _ in ROWS:
        r = load(c, scenario)
        if r and r.get("errors"):
            errors.append(f"- {c} {scenario}: {r['errors']}")
for e in dict.fromkeys(errors):
    print(e)
