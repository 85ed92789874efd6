#!/usr/bin/env python3
"""Prints run-compare.sh's results as a markdown table: each value and its ratio to Mosquitto's.

usage: compare-table.py [--baseline NAME] OUT_DIR mosquitto COLUMN [COLUMN ...]

Reads OUT_DIR/<column>.<scenario>.out, or with several rounds OUT_DIR/round-<n>/<column>.<scenario>.out;
then each cell is the median over the rounds with its min..max, and ratios are of medians.
--baseline NAME (bench/bridge-compare.sh: `direct`, no bridge) adds the column NAME first, without a
ratio, and under each publish->delivery row the row "added over NAME": each column's median minus NAME's,
with the ratio of those differences.
"""
import json
import re
import statistics
import sys
from pathlib import Path

args = sys.argv[1:]
baseline = None
if args[:1] == ["--baseline"]:
    baseline, args = args[1], args[2:]
out, columns = Path(args[0]), args[1:]
rounds = sorted((d for d in out.glob("round-*") if re.fullmatch(r"round-\d+", d.name)),
                key=lambda d: int(d.name.split("-")[1])) or [out]

ROWS = [  # label, scenario, key, unit, higher_is_better
    ("fan-in QoS 0, 10->2, msgs/s received", "fanin-qos0", "received_per_s", "", True),
    ("fan-in QoS 1, 10->2, msgs/s received", "fanin-qos1", "received_per_s", "", True),
    ("fan-in QoS 2, 10->2, msgs/s received", "fanin-qos2", "received_per_s", "", True),
    ("fan-in QoS 1, 10->2, PUBACKs/s", "fanin-qos1", "acknowledged_per_s", "", True),
    ("fan-in QoS 1 + 1 slow subscriber, PUBACKs/s", "slow-subscriber-qos1", "acknowledged_per_s", "", True),
    ("fan-in QoS 1 + 1 slow subscriber, msgs/s received by the 2 others", "slow-subscriber-qos1", "received_per_s", "", True),
    ("fan-in QoS 0 + 1,000 subscription changes/s elsewhere, msgs/s received", "churn-qos0", "received_per_s", "", True),
    ("fan-in QoS 1 unthrottled, msgs/s received", "fanin-qos1-unthrottled", "received_per_s", "", True),
    ("fan-in QoS 0 unthrottled, msgs/s received", "fanin-qos0-unthrottled", "received_per_s", "", True),
    ("fan-in QoS 1, 16 KB payloads, msgs/s received", "fanin-qos1-16k", "received_per_s", "", True),
    ("fan-in QoS 1, 60 KB payloads, msgs/s received", "fanin-qos1-60k", "received_per_s", "", True),
    ("fan-in QoS 1, 60 KB payloads, messages lost", "fanin-qos1-60k", "lost", "", False),
    ("fan-out QoS 0, 1->100, deliveries/s", "fanout", "received_per_s", "", True),
    ("QoS 1 PUBLISH->PUBACK p50, us", "latency", "puback_p50_us", "", False),
    ("QoS 1 PUBLISH->PUBACK p99, us", "latency", "puback_p99_us", "", False),
    ("QoS 1 publish->delivery p50, us", "latency", "delivery_p50_us", "", False),
    ("QoS 1 publish->delivery p99, us", "latency", "delivery_p99_us", "", False),
    ("connects/s (connect, CONNACK, DISCONNECT; 8 at once)", "connect-rate", "connects_per_s", "", True),
    ("broker CPU per connect, us (user + system, every thread)", "connect-rate", "broker_cpu_us_per_connect", "", False),
    ("idle connections: connects/s", "idle", "connects_per_s", "", True),
    ("idle connections: broker RSS per connection, KiB", "idle", "rss_per_connection_kib", "", False),
    ("idle connections: live heap per connection after full GC, KiB", "idle", "heap_per_connection_kib", "", False),
]


def load(directory, column, scenario):
    path = directory / f"{column}.{scenario}.out"
    if not path.exists():
        return None
    for line in reversed(path.read_text().splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                pass
    return {"errors": (path.read_text().strip().splitlines() or ["no output"])[0]}


def number(value):
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.2f}"


def notes(result):
    found = []
    if result.get("lost"):
        found.append(f"lost {result['lost']:,}")
    if result.get("failed"):
        found.append(f"{result['failed']:,} failed")
    if result.get("connected") is not None and result.get("connected") != result.get("connections"):
        found.append(f"{result['connected']:,} of {result['connections']:,} connected")
    if result.get("errors") and not result.get("lost"):
        found.append("error")
    return found


def in_rounds(found):
    """Notes or errors seen per round, {text: [round, ...]}, as lines: "text in r1,r3" with rounds."""
    if len(rounds) == 1:
        return list(found)
    return [f"{text} in " + ",".join(f"r{n}" for n in numbers) for text, numbers in found.items()]


def cell(column, scenario, key):
    """The median over the rounds and its text: "median (min..max; notes)"; (None, text) if no value."""
    values, remarks, results = [], {}, []
    for n, directory in enumerate(rounds, 1):
        result = load(directory, column, scenario)
        results.append(result)
        if result is None:
            continue
        if key in result and result[key] is not None:
            values.append(result[key])
        for note in notes(result):
            remarks.setdefault(note, []).append(n)
    if not values:
        # A value the scenario does not produce for this broker (live heap: JVM brokers only) is n/a.
        return None, "error" if any(r and r.get("errors") for r in results) else "n/a"
    median = statistics.median(values)
    shown = in_rounds(remarks)
    if len(rounds) > 1:
        shown.insert(0, f"{number(min(values))}..{number(max(values))}"
                     + (f" of {len(values)} rounds" if len(values) != len(rounds) else ""))
    return median, number(median) + (f" ({'; '.join(shown)})" if shown else "")


# Latencies a bridge adds to the direct path: shown as differences to --baseline's column too.
ADDED = {"delivery_p50_us", "delivery_p99_us"}


def ratio(value, base):
    return f"{value / base:.2f}" if value is not None and base else "-"


header = ["metric"] + ([baseline] if baseline else [])
for c in columns:
    header.append(c)
    if c != columns[0]:
        header.append(f"{c} / {columns[0]}")
print("| " + " | ".join(header) + " |")
print("|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|")
for label, scenario, key, _, higher in ROWS:
    if not any(any(d.glob(f"*.{scenario}.out")) for d in rounds):
        continue  # not run (run-compare.sh -s)
    base, base_text = cell(columns[0], scenario, key)
    row = [label] + ([cell(baseline, scenario, key)[1]] if baseline else []) + [base_text]
    for c in columns[1:]:
        value, text = cell(c, scenario, key)
        row.append(text)
        row.append(ratio(value, base))
    print("| " + " | ".join(row) + " |")
    if baseline and key in ADDED:
        direct = cell(baseline, scenario, key)[0]
        added = [None if v is None or direct is None else v - direct
                 for v in (cell(c, scenario, key)[0] for c in columns)]
        row = [f"{label}, added over {baseline}", "-"]
        for n, value in enumerate(added):
            row.append("-" if value is None else number(value))
            if n > 0:  # a ratio of added latencies only when both are: on a noisy run one may be below direct's
                row.append(ratio(value, added[0]) if value is not None and value > 0 and (added[0] or 0) > 0 else "-")
        print("| " + " | ".join(row) + " |")
print()
if len(rounds) > 1:
    print(f"Each value is the median of {len(rounds)} rounds (min..max in brackets); ratios are of medians.")
if baseline:
    print(f"Ratios are {', '.join(columns[1:])} / {columns[0]}: above 1 is better for rates, below 1 is better"
          f" for latency. {baseline}: publishers and subscribers on the remote broker itself, no bridge; the"
          f" 'added over {baseline}' rows are each column's median minus {baseline}'s.")
else:
    print("Ratios are pekquitto / Mosquitto: above 1 is better for rates, below 1 is better for latency and memory.")
if (out / "transport").exists():  # written by run-compare.sh: tcp, tls, ws or wss
    print(f"MQTT over {(out / 'transport').read_text().strip()}.")
for c in ([baseline] + columns) if baseline else columns[1:]:
    config = out / f"{c}.config" if len(rounds) == 1 else rounds[0] / f"{c}.config"
    if config.exists():
        print(f"- {c}: {config.read_text().strip()}")
errors = {}
for c in ([baseline] if baseline else []) + columns:
    for n, directory in enumerate(rounds, 1):
        for scenario in dict.fromkeys(r[1] for r in ROWS):
            r = load(directory, c, scenario)
            if r and r.get("errors"):
                errors.setdefault(f"- {c} {scenario}: {r['errors']}", []).append(n)
for line in in_rounds(errors):
    print(line)
