#!/bin/sh
# Builds the release binaries and runs the benchmark on a private PulseAudio null sink, with a
# private Mosquitto broker for the MQTT figures and a private PostgreSQL (fsync on) for the fleet
# console's.
# Arguments go to herald-bench (scripts/bench.sh --runs 15; --piper-only for the natural voice's
# part; --fleet-only for the fleet console's; --languages-only for the cost of a payment's words per language).
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The same Piper folder as the tests' (installed once, kept between runs).
HERALD_BENCH_PIPER=${HERALD_BENCH_PIPER:-${XDG_CACHE_HOME:-$HOME/.cache}/herald-piper}
scripts/install-voice.sh "$HERALD_BENCH_PIPER"
export HERALD_BENCH_PIPER
PRIVATE_SINK=herald_bench
# The fleet part publishes 100,000 hubs' heartbeats at once: as docs/fleet.md advises for a
# console's broker, its queue per client is above the largest burst.
PRIVATE_MQTT_MAX_QUEUED=400000
. scripts/private-pulse.sh
. scripts/private-mosquitto.sh
. scripts/private-postgres.sh
trap 'status=$?; stop_private_postgres; stop_private_mosquitto; stop_private_pulse; exit $status' EXIT INT TERM
# Linked as the .deb links them (scripts/package.sh), so the figures are those of what ships.
swift build -c release --static-swift-stdlib --product herald
swift build -c release --static-swift-stdlib --product herald-full
bin="$(swift build -c release --show-bin-path)"
# The bench itself links Foundation's networking, which has no static curl to link against; it
# builds in a folder of its own, so the two link modes do not rebuild each other every run.
swift build -c release --scratch-path .build-bench --product herald-bench
bench="$(swift build -c release --scratch-path .build-bench --show-bin-path)/herald-bench"
# Line-buffered (stdbuf): a run that fails half-way still shows what it measured.
HERALD_BENCH_SINK=$PRIVATE_SINK HERALD_BENCH_MQTT_PORT=$HERALD_TEST_MQTT_PORT HERALD_BENCH_PG_PORT=$HERALD_TEST_PG_PORT HERALD_BIN="$bin/herald" stdbuf -oL "$bench" "$@"
