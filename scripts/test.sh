#!/bin/sh
# Runs Herald's whole test suite against a private PulseAudio server with a null sink, started here
# in its own runtime directory (so it never disturbs another server) and stopped by its pid.
# Arguments go to `swift test` (scripts/test.sh --filter SpeechPlayTests).
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
PRIVATE_SINK=herald_test
. scripts/private-pulse.sh
export HERALD_TEST_SINK=$PRIVATE_SINK
swift build
HERALD_BIN="$(swift build --show-bin-path)/herald" swift test "$@"
