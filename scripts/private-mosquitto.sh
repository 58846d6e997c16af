# Sourced by test.sh and bench.sh: starts a private Mosquitto broker on a free loopback port, with
# its own config, pid file and persistence folder, and exports where it is. The caller stops it
# with stop_private_mosquitto (by the pid in its pid file: a test may have restarted it).
broker_dir=$(mktemp -d /tmp/herald-mosquitto.XXXXXX)
port_in_use() {
    hex=$(printf '%04X' "$1")
    grep -Eq "^ *[0-9]+: [0-9A-F]+:$hex [0-9A-F]+:[0-9A-F]+ 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
broker_port=$((20000 + $$ % 20000))
while port_in_use "$broker_port"; do broker_port=$((broker_port + 1)); done
# As root, Mosquitto would drop to the `mosquitto` user, which may not write in this folder.
cat > "$broker_dir/mosquitto.conf" <<CONF
user $(id -un)
listener $broker_port 127.0.0.1
allow_anonymous true
persistence true
persistence_location $broker_dir/
autosave_interval 60
pid_file $broker_dir/mosquitto.pid
log_dest file $broker_dir/mosquitto.log
max_queued_messages ${PRIVATE_MQTT_MAX_QUEUED:-5000}
CONF
stop_private_mosquitto() {
    if [ -f "$broker_dir/mosquitto.pid" ]; then
        pid=$(cat "$broker_dir/mosquitto.pid")
        kill "$pid" 2>/dev/null || true
        # It saves its persistence file as it exits: wait, or the folder is not empty yet.
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
    rm -rf "$broker_dir" 2>/dev/null || echo "note: could not remove $broker_dir" >&2
}
mosquitto -c "$broker_dir/mosquitto.conf" -d
i=0
until [ -s "$broker_dir/mosquitto.pid" ] && port_in_use "$broker_port"; do
    i=$((i + 1))
    if [ "$i" -gt 50 ]; then echo "mosquitto did not start; see $broker_dir/mosquitto.log" >&2; cat "$broker_dir/mosquitto.log" >&2; exit 1; fi
    sleep 0.1
done
export HERALD_TEST_MQTT_PORT=$broker_port
export HERALD_TEST_MQTT_CONFIG="$broker_dir/mosquitto.conf"
export HERALD_TEST_MQTT_PIDFILE="$broker_dir/mosquitto.pid"
