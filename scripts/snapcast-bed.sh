#!/bin/sh
# Starts a private PulseAudio and the Snapcast test bed (scripts/private-snapcast.sh), runs the
# command given (in the bed's environment: PULSE_SERVER, HERALD_TEST_SNAP_*) and stops everything.
# Without a command it prints the environment and waits until interrupted, for work by hand.
#   scripts/snapcast-bed.sh python3 scripts/snapcast-probe.py onsets
#   PRIVATE_SNAP_BUFFER=400 PRIVATE_SNAP_CLIENTS="ward-a ward-b ward-c" scripts/snapcast-bed.sh
set -eu
cd "$(dirname "$0")/.."
PRIVATE_SINK=herald_test
. scripts/private-pulse.sh
. scripts/private-snapcast.sh
if [ $# -gt 0 ]; then
    # Not exec: the EXIT trap must still stop the bed.
    "$@"
    exit
fi
env | grep -E '^(PULSE_SERVER|HERALD_TEST_SNAP_[A-Z_]*)=' | sed "s/^\([A-Z_]*\)=\(.*\)/export \1='\2'/"
echo "# bed up; Ctrl-C (or kill $$) stops it" >&2
while :; do sleep 1; done
