#!/bin/sh
# Runs Herald's whole test suite against a private PulseAudio server with a null sink, started here
# in its own runtime directory (so it never disturbs another server) and stopped by its pid.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh

runtime=$(mktemp -d /tmp/herald-test-pulse.XXXXXX)
stop_server() {
    if [ -f "$runtime/pulse/pid" ]; then kill "$(cat "$runtime/pulse/pid")" 2>/dev/null || true; fi
    rm -rf "$runtime"
}
trap stop_server EXIT INT TERM

XDG_RUNTIME_DIR="$runtime" HOME="$runtime" pulseaudio --daemonize=yes --use-pid-file=yes -n \
    --exit-idle-time=-1 --log-target="file:$runtime/pulse.log" \
    -L "module-null-sink sink_name=herald_test rate=48000 channels=2 sink_properties=device.description=HeraldTest" \
    -L "module-native-protocol-unix socket=$runtime/native auth-anonymous=1"

export PULSE_SERVER="unix:$runtime/native" HERALD_TEST_SINK=herald_test
# Keep the tests' state away from the user's own.
export XDG_STATE_HOME="$runtime/state"
swift build
HERALD_BIN="$(swift build --show-bin-path)/herald" swift test "$@"
