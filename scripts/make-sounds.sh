#!/bin/sh
# Regenerates the project's own sample sounds with sox (they are committed; run this only to change them).
set -eu
cd "$(dirname "$0")/../Sounds/samples"
# A two-tone chime, 1.2 s: the sample `herald play` uses in the README.
sox -n -r 44100 -c 1 -b 16 chime-a.wav synth 0.5 sine 880 fade q 0.01 0.5 0.2 vol 0.5
sox -n -r 44100 -c 1 -b 16 chime-b.wav synth 0.7 sine 660 fade q 0.01 0.7 0.4 vol 0.5
sox chime-a.wav chime-b.wav two-tone-chime.wav
rm chime-a.wav chime-b.wav
