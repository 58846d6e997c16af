# Sourced after private-pulse.sh (it needs PULSE_SERVER): starts a private Snapcast server and
# snapclients on this machine, in their own folder, on free loopback ports, and stops them by
# their pids. In the private PulseAudio it loads:
#   snapcast_feed    the sink whose monitor is the Snapcast stream "feed" (the house's music and
#                    Herald's announcements are played into it);
#   snapcast_other   the same for the stream "other" (a group playing something else);
#   ears             one null sink of aux0..auxN+1: aux0 hears what is played into snapcast_feed (a
#                    remap sink on ears, whose monitor still feeds Snapcast), aux1..auxN each client,
#                    auxN+1 what is played into snapcast_other;
#                    one recording of ears.monitor shows what was sent and what every client played;
#   ward_a, ward_b.. one mono remap sink on ears per client; snapclient ward-a plays into ward_a.
# Settings (before sourcing): PRIVATE_SNAP_CLIENTS (default "ward-a ward-b"), PRIVATE_SNAP_BUFFER
# (the server's buffer in ms, default 1000), PRIVATE_SNAP_CODEC (default pcm), PRIVATE_SNAP_SOURCE
# (tcp, default: a parec of each monitor sends to a tcp source of the server; or pipe: writes into a
# FIFO; see docs/research/snapcast.md for why tcp keeps the delay steady and pipe does not),
# PRIVATE_SNAP_SEND_TO_MUTED (default false, as snapserver's own default), PRIVATE_SNAP_CLIENT_OPTS
# (more snapclient options for every client, e.g. "--mixer hardware"), PRIVATE_SNAP_PLAYER (default
# pulse; e.g. pulse:buffer_time=50).
# Exports HERALD_TEST_SNAP_STREAM_PORT, _CONTROL_PORT, _HTTP_PORT, _SERVER (tcp://127.0.0.1:port),
# _SINK (snapcast_feed), _CLIENTS, _BUFFER, _DIR. Functions: stop_private_snapcast (everything),
# start_snapserver / stop_snapserver [SIGNAL], start_snapclient ID / stop_snapclient ID,
# snapclient_pid ID (a test may kill -9 or restart either side, as a crash would).
snap_dir=$(mktemp -d /tmp/herald-snapcast.XXXXXX)
snap_clients=${PRIVATE_SNAP_CLIENTS:-ward-a ward-b}
snap_buffer=${PRIVATE_SNAP_BUFFER:-1000}
snap_codec=${PRIVATE_SNAP_CODEC:-pcm}
snap_send_to_muted=${PRIVATE_SNAP_SEND_TO_MUTED:-false}
snap_player=${PRIVATE_SNAP_PLAYER:-pulse}
snap_source=${PRIVATE_SNAP_SOURCE:-tcp}
if ! command -v port_in_use > /dev/null 2>&1; then
    port_in_use() {
        hex=$(printf '%04X' "$1")
        grep -Eq "^ *[0-9]+: [0-9A-F]+:$hex [0-9A-F]+:[0-9A-F]+ 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null
    }
fi
snap_free_port() { # FROM: the first port from FROM that no one listens on
    p=$1
    while port_in_use "$p"; do p=$((p + 1)); done
    echo "$p"
}
snap_stream_port=$(snap_free_port $((22000 + $$ % 20000)))
snap_control_port=$(snap_free_port $((snap_stream_port + 1)))
snap_http_port=$(snap_free_port $((snap_control_port + 1)))
snap_feed_port=$(snap_free_port $((snap_http_port + 1)))
snap_other_port=$(snap_free_port $((snap_feed_port + 1)))

# Sinks: ears first (the others are remap sinks on it).
snap_count=0
for _ in $snap_clients; do snap_count=$((snap_count + 1)); done
snap_ears_map=aux0
i=1
while [ "$i" -le $((snap_count + 1)) ]; do snap_ears_map="$snap_ears_map,aux$i"; i=$((i + 1)); done
snap_modules=""
snap_load() { snap_modules="$(pactl load-module "$@") $snap_modules"; }
snap_load module-null-sink sink_name=ears rate=48000 channels=$((snap_count + 2)) channel_map=$snap_ears_map
snap_load module-remap-sink sink_name=snapcast_feed master=ears channels=2 channel_map=front-left,front-right \
    master_channel_map=aux0,aux0 remix=no
snap_load module-remap-sink sink_name=snapcast_other master=ears channels=2 channel_map=front-left,front-right \
    master_channel_map=aux$((snap_count + 1)),aux$((snap_count + 1)) remix=no
i=1
for client in $snap_clients; do
    sink=$(echo "$client" | tr - _)
    snap_load module-remap-sink sink_name="$sink" master=ears channels=1 channel_map=mono master_channel_map=aux$i remix=no
    i=$((i + 1))
done

# A `parec` of each sink's monitor feeds the server, in a loop (it exits when the server goes away;
# the next one waits for the next server): into a tcp source (bash's /dev/tcp connects) or a FIFO.
if [ "$snap_source" = pipe ]; then
    snap_feed_uri="pipe://$snap_dir/feed.fifo?name=feed&mode=create"
    snap_other_uri="pipe://$snap_dir/other.fifo?name=other&mode=create"
else
    snap_feed_uri="tcp://127.0.0.1:$snap_feed_port?name=feed&mode=server"
    snap_other_uri="tcp://127.0.0.1:$snap_other_port?name=other&mode=server"
fi
cat > "$snap_dir/snapserver.conf" <<CONF
[server]
datadir = $snap_dir/data
threads = 2
[http]
enabled = true
bind_to_address = 127.0.0.1
port = $snap_http_port
doc_root =
[tcp]
enabled = true
bind_to_address = 127.0.0.1
port = $snap_control_port
[stream]
bind_to_address = 127.0.0.1
port = $snap_stream_port
source = $snap_feed_uri
source = $snap_other_uri
sampleformat = 48000:16:2
codec = $snap_codec
chunk_ms = 10
buffer = $snap_buffer
send_to_muted = $snap_send_to_muted
[logging]
sink = file:$snap_dir/snapserver.log
filter = *:info
CONF
mkdir -p "$snap_dir/data"
: > "$snap_dir/feeders.run"
snap_feed_pid=""
snap_other_pid=""
snap_feeder() { # SINK FIFO-or-PORT
    while [ -f "$snap_dir/feeders.run" ]; do
        if [ "$snap_source" = pipe ]; then
            [ -p "$2" ] || mkfifo "$2"
            parec --device="$1.monitor" --raw --format=s16le --rate=48000 --channels=2 --latency-msec=10 \
                --client-name="snapcast feeder $1" > "$2" 2>> "$snap_dir/feeder.log" || true
        else
            # shellcheck disable=SC2016 # $0 and $1 are bash's
            bash -c 'exec parec --device="$0.monitor" --raw --format=s16le --rate=48000 --channels=2 \
                --latency-msec=10 --client-name="snapcast feeder $0" > "/dev/tcp/127.0.0.1/$1"' "$1" "$2" \
                2>> "$snap_dir/feeder.log" || true
        fi
        sleep 0.1
    done
}
if [ "$snap_source" = pipe ]; then
    snap_feeder snapcast_feed "$snap_dir/feed.fifo" &
    snap_feed_pid=$!
    snap_feeder snapcast_other "$snap_dir/other.fifo" &
    snap_other_pid=$!
fi

start_snapserver() {
    snapserver -c "$snap_dir/snapserver.conf" > "$snap_dir/snapserver.out" 2>&1 &
    snap_server_pid=$!
    i=0
    until port_in_use "$snap_control_port" && port_in_use "$snap_stream_port"; do
        i=$((i + 1))
        if [ "$i" -gt 100 ] || ! kill -0 "$snap_server_pid" 2>/dev/null; then
            echo "snapserver did not start; see $snap_dir/snapserver.log" >&2
            cat "$snap_dir/snapserver.out" "$snap_dir/snapserver.log" >&2 2>/dev/null; exit 1
        fi
        sleep 0.1
    done
}
# SIGNAL defaults to TERM; KILL leaves server.json as it was, as a crash would.
stop_snapserver() {
    [ -n "${snap_server_pid:-}" ] || return 0
    kill "-${1:-TERM}" "$snap_server_pid" 2>/dev/null || true
    wait "$snap_server_pid" 2>/dev/null || true
    snap_server_pid=""
}
# Each client runs under a loop that starts it again when it exits, as Debian's snapclient.service
# does (Restart=on-failure): snapclient 0.26.0 with the pulse player often dies of SIGSEGV when the
# server goes away. The loop ends when the client's run file is removed; the running snapclient's
# pid is in $snap_dir/snapclient-ID.pid (kill -9 it to crash the client; the loop brings it back).
start_snapclient() { # ID [extra snapclient options]
    id=$1; shift
    sink=$(echo "$id" | tr - _)
    : > "$snap_dir/snapclient-$id.run"
    (
        while [ -f "$snap_dir/snapclient-$id.run" ]; do
            snapclient --host 127.0.0.1 --port "$snap_stream_port" --hostID "$id" --player "$snap_player" \
                --soundcard "$sink" --logsink "file:$snap_dir/snapclient-$id.log" "$@" \
                >> "$snap_dir/snapclient-$id.out" 2>&1 &
            echo $! > "$snap_dir/snapclient-$id.pid"
            wait $! || echo "snapclient $id exited with $?" >> "$snap_dir/snapclient-$id.out"
            sleep 0.1
        done
    ) 2>> "$snap_dir/snapclient-$id.out" &
    # Variables cannot hold '-': the loop of client ward-a is in snap_client_loop_ward_a.
    eval "snap_client_loop_$sink=$!"
}
snapclient_pid() { cat "$snap_dir/snapclient-$1.pid" 2>/dev/null; }
stop_snapclient() { # ID: ends the loop, then the client
    sink=$(echo "$1" | tr - _)
    eval "loop=\${snap_client_loop_$sink:-}"
    [ -n "$loop" ] || return 0
    rm -f "$snap_dir/snapclient-$1.run"
    pid=$(snapclient_pid "$1")
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    wait "$loop" 2>/dev/null || true
    eval "snap_client_loop_$sink="
}
stop_private_snapcast() {
    for client in $snap_clients; do stop_snapclient "$client"; done
    stop_snapserver
    # The feeders: end their loops first, then the parec in each (a FIFO's may wait in open()).
    rm -f "$snap_dir/feeders.run" "$snap_dir/feed.fifo" "$snap_dir/other.fifo"
    for pid in $snap_feed_pid $snap_other_pid; do
        pkill -P "$pid" 2>/dev/null || true
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    for module in $snap_modules; do pactl unload-module "$module" 2>/dev/null || true; done
    rm -rf "$snap_dir"
}
trap 'status=$?; stop_private_snapcast; stop_private_pulse; exit $status' EXIT INT TERM

start_snapserver
if [ "$snap_source" != pipe ]; then
    snap_feeder snapcast_feed "$snap_feed_port" &
    snap_feed_pid=$!
    snap_feeder snapcast_other "$snap_other_port" &
    snap_other_pid=$!
fi
# shellcheck disable=SC2086 # the options are words
for client in $snap_clients; do start_snapclient "$client" ${PRIVATE_SNAP_CLIENT_OPTS:-}; done
# Wait until every client has said hello (the server truncates its log when it starts).
i=0
while :; do
    hellos=$(grep -c 'Hello from' "$snap_dir/snapserver.log" 2>/dev/null) || true
    [ "${hellos:-0}" -ge "$snap_count" ] && break
    i=$((i + 1))
    if [ "$i" -gt 100 ]; then echo "snapclients did not connect; see $snap_dir" >&2; cat "$snap_dir"/*.log >&2; exit 1; fi
    sleep 0.1
done
export HERALD_TEST_SNAP_STREAM_PORT=$snap_stream_port
export HERALD_TEST_SNAP_CONTROL_PORT=$snap_control_port
export HERALD_TEST_SNAP_HTTP_PORT=$snap_http_port
export HERALD_TEST_SNAP_SERVER="tcp://127.0.0.1:$snap_control_port"
export HERALD_TEST_SNAP_SINK=snapcast_feed
export HERALD_TEST_SNAP_CLIENTS="$snap_clients"
export HERALD_TEST_SNAP_DIR=$snap_dir
export HERALD_TEST_SNAP_BUFFER=$snap_buffer
