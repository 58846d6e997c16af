# Sourced by test.sh and bench.sh: starts a private PulseAudio server with a null sink called
# $PRIVATE_SINK in its own runtime directory, exports PULSE_SERVER, and stops it by its pid on exit.
runtime=$(mktemp -d /tmp/herald-pulse.XXXXXX)
# Stops the server and removes its folder; the caller's exit status is the caller's to keep
# (test.sh: `trap 'status=$?; ...; stop_private_pulse; exit $status' EXIT`).
stop_private_pulse() {
    if [ -f "$runtime/pulse/pid" ]; then
        pid=$(cat "$runtime/pulse/pid")
        kill "$pid" 2>/dev/null || true
        # Wait for it to exit: a server still shutting down writes into the folder being removed.
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
    rm -rf "$runtime" 2>/dev/null || rm -rf "$runtime" 2>/dev/null || echo "note: could not remove $runtime" >&2
}
trap 'status=$?; stop_private_pulse; exit $status' EXIT INT TERM

XDG_RUNTIME_DIR="$runtime" HOME="$runtime" pulseaudio --daemonize=yes --use-pid-file=yes -n \
    --exit-idle-time=-1 --log-target="file:$runtime/pulse.log" \
    -L "module-null-sink sink_name=$PRIVATE_SINK rate=48000 channels=2 sink_properties=device.description=Herald-$PRIVATE_SINK" \
    -L "module-native-protocol-unix socket=$runtime/native auth-anonymous=1"
export PULSE_SERVER="unix:$runtime/native"
# Keep this run's state away from the user's own.
export XDG_STATE_HOME="$runtime/state"
