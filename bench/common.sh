# What the bench scripts share; sourced, after SCRIPT is set to the script's name.

usage() { awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; exit 2; }
fail() { echo "$SCRIPT: $*" >&2; exit 2; }

# Column names into NAMES: the comma-separated LABELS ($1), or pekquitto-1, pekquitto-2, ... for the
# $2 configurations. They name files, hence the character set.
column_names() {
  NAMES=()
  if [ -n "$1" ]; then
    IFS=, read -r -a NAMES <<<"$1"
    [ ${#NAMES[@]} -eq "$2" ] || fail "-l names ${#NAMES[@]} column(s) for $2 configuration(s)"
  else
    for ((i = 1; i <= $2; i++)); do NAMES+=("pekquitto-$i"); done
  fi
  for name in "${NAMES[@]}"; do
    [[ $name =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] || fail "column name '$name': letters, digits, . _ - only"
    [ "$name" != mosquitto ] || fail "column name 'mosquitto' is Mosquitto's"
  done
  [ "$(printf '%s\n' "${NAMES[@]}" | sort | uniq -d)" = "" ] || fail "column names repeat: ${NAMES[*]}"
}

# Stops the broker started in the background as BROKER_PID, by force if it does not stop within 1 s.
cleanup() {
  if [ -n "${BROKER_PID:-}" ] && kill -0 "$BROKER_PID" 2>/dev/null; then
    kill "$BROKER_PID" 2>/dev/null || true
    sleep 1
    kill -9 "$BROKER_PID" 2>/dev/null || true
  fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# Port $1: until something accepts on it (120 s at most), or the broker started as BROKER_PID exits.
wait_port() {
  for _ in $(seq 1 12000); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    kill -0 "$BROKER_PID" 2>/dev/null || { echo "$SCRIPT: the broker exited" >&2; return 1; }
    sleep 0.01
  done
  return 1
}

# Each configuration ($2...) as a broker jar (a leading `jar=PATH`, `hivemq` for run-compare.sh's HiveMQ CE
# column, else $1) and the rest, its JVM options: into JARS and OPTS, one entry per configuration.
split_configs() {
  local default_jar=$1 config jar
  shift
  JARS=()
  OPTS=()
  for config in "$@"; do
    if [[ $config == hivemq || $config == "hivemq "* || $config == netty-floor || $config == "netty-floor "* ]]; then
      JARS+=("${config%% *}")  # bench/run-compare.sh's HiveMQ CE column, or Netty's floor's (bench/floor/NettyFloor.java)
      if [[ $config == *" "* ]]; then OPTS+=("${config#* }"); else OPTS+=(""); fi
    elif [[ $config == jar=* ]]; then
      jar=${config%% *}
      jar=${jar#jar=}
      if [[ $config == *" "* ]]; then OPTS+=("${config#* }"); else OPTS+=(""); fi
      [ -f "$jar" ] || fail "no broker jar $jar"
      JARS+=("$(cd "$(dirname "$jar")" && pwd)/$(basename "$jar")")
    else
      JARS+=("$default_jar")
      OPTS+=("$config")
    fi
  done
}

# Starts a broker that keeps its state in a store directory, in the background as BROKER_PID, its output
# appended to OUT/NAME.log: Mosquitto (`persistence true`, its default `autosave_interval 1800` written
# out) for the name `mosquitto`, else pekquitto (`store.enabled = true`). Arguments: name, port, store
# directory, JVM options, broker jar, max queued messages per client, seconds until `timeout` stops it.
# Uses WORK, OUT, MOSQUITTO and JAVA.
start_persistent_broker() {
  if [ "$1" = mosquitto ]; then
    cat >"$WORK/mosquitto.conf" <<CONF
listener $2 127.0.0.1
allow_anonymous true
persistence true
persistence_location $3/
autosave_interval 1800
max_queued_messages $6
max_inflight_messages 20
CONF
    chmod 777 "$3"
    timeout "$7" "$MOSQUITTO" -c "$WORK/mosquitto.conf" >>"$OUT/$1.log" 2>&1 &
  else
    cat >"$WORK/$1.conf" <<CONF
listeners = [ { host = "127.0.0.1", port = $2 } ]
max-queued-messages = $6
store { enabled = true, path = "$3" }
CONF
    # shellcheck disable=SC2086  # the options string is split on purpose
    timeout "$7" "$JAVA" $4 -jar "$5" -c "$WORK/$1.conf" >>"$OUT/$1.log" 2>&1 &
  fi
  BROKER_PID=$!
}
