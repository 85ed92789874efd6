#!/usr/bin/env bash
# Refreshes the MQTT.js browser bundle the status page loads, vendored so that the Maven build needs no npm:
#   tools/update-mqttjs.sh            # the newest 5.x
#   tools/update-mqttjs.sh 5.16.0     # a given version
# It takes the npm package `mqtt` with `npm pack` (from the registry npm is configured for), copies its
# dist/mqtt.min.js and its licence beside the page, and prints the version: state it in README.md
# ("The status page"), and bump `mqtt` in src/test/js/package.json to match (`npm install --save-exact`).
set -euo pipefail
cd "$(dirname "$0")/.."
spec="mqtt@${1:-5}"
target=shards/src/main/resources/io/pekquitto/shards/status
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tarball=$(cd "$work" && npm pack --silent "$spec" | tail -n 1)
tar -xzf "$work/$tarball" -C "$work" package/package.json package/dist/mqtt.min.js package/LICENSE.md
version=$(node -p 'require(process.argv[1]).version' "$work/package/package.json")
mkdir -p "$target"
cp "$work/package/dist/mqtt.min.js" "$target/mqtt.min.js"
cp "$work/package/LICENSE.md" "$target/mqtt.min.js.LICENSE.txt"
echo "MQTT.js $version -> $target/mqtt.min.js (licence: mqtt.min.js.LICENSE.txt)"
