#!/bin/sh
# Runs Herald's whole test suite against a private PulseAudio server with a null sink, a
# private Mosquitto broker, a private PostgreSQL server (for the fleet console) and a private
# Radicale (CalDAV, for calendars), all started
# here in their own folders (so they never disturb another server or broker) and stopped by their pids. Piper and its voice are installed once into a
# folder kept between runs (HERALD_TEST_PIPER). Arguments go to `swift test`
# (scripts/test.sh --filter SpeechPlayTests).
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# No module may depend on a higher one, nor the fleet console on the hub's daemon and audio
# (docs/development.md): checked before anything is built, and the check itself checked.
scripts/module-graph.sh > /dev/null
scripts/module-graph-test.sh
HERALD_TEST_PIPER=${HERALD_TEST_PIPER:-${XDG_CACHE_HOME:-$HOME/.cache}/herald-piper}
scripts/install-voice.sh "$HERALD_TEST_PIPER"
export HERALD_TEST_PIPER
PRIVATE_SINK=herald_test
. scripts/private-pulse.sh
. scripts/private-mosquitto.sh
trap 'status=$?; stop_private_mosquitto; stop_private_pulse; exit $status' EXIT INT TERM
PRIVATE_PG_FSYNC=off
. scripts/private-postgres.sh
trap 'status=$?; stop_private_postgres; stop_private_mosquitto; stop_private_pulse; exit $status' EXIT INT TERM
. scripts/private-radicale.sh
trap 'status=$?; stop_private_radicale; stop_private_postgres; stop_private_mosquitto; stop_private_pulse; exit $status' EXIT INT TERM
export HERALD_TEST_SINK=$PRIVATE_SINK
# Every import declared in Package.swift, test targets included: an undeclared one fails here
# rather than compiling through another module's dependencies.
swift build --build-tests --explicit-target-dependency-import-check=error
export HERALD_BIN="$(swift build --show-bin-path)/herald"
if [ $# -gt 0 ]; then
    # Not exec: the EXIT trap above must still stop the private server and broker.
    swift test "$@"
    exit
fi
# Two processes, one after the other. Many integration tests wait by blocking their thread
# (usleep, waitUntilExit on `herald`), and Swift's concurrency pool has one thread per core: in
# one process with the in-process suites, two such waits stopped every other task for seconds
# and their timings failed (docs/development.md, "Tests").
swift test --skip IntegrationTests
swift test --filter IntegrationTests
