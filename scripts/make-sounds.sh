#!/bin/sh
# Regenerates the project's own sample sounds with sox (they are committed; run this only to change them).
set -eu
cd "$(dirname "$0")/../Sounds/samples"
# A two-tone chime, 1.2 s: the sample `herald play` uses in the README.
sox -n -r 44100 -c 1 -b 16 chime-a.wav synth 0.5 sine 880 fade q 0.01 0.5 0.2 vol 0.5
sox -n -r 44100 -c 1 -b 16 chime-b.wav synth 0.7 sine 660 fade q 0.01 0.7 0.4 vol 0.5
sox chime-a.wav chime-b.wav two-tone-chime.wav
rm chime-a.wav chime-b.wav

# Chimes, played before an announcement (`chimes.PRIORITY` in the config, `--chime NAME`).
mkdir -p ../chimes
sox -n -r 44100 -c 1 ../chimes/ding.flac synth 0.35 sine 1318.5 fade q 0.005 0.35 0.3 vol 0.5
sox -n -r 44100 -c 1 ../chimes/bell.flac synth 0.6 sine 880 sine 1760 remix 1,2 fade q 0.005 0.6 0.5 vol 0.4
sox -n -r 44100 -c 1 alert-a.flac synth 0.18 sine 988 fade q 0.005 0.18 0.02 vol 0.6
sox -n -r 44100 -c 1 alert-b.flac synth 0.18 sine 784 fade q 0.005 0.18 0.02 vol 0.6
sox alert-a.flac alert-b.flac alert-a.flac alert-b.flac ../chimes/alert.flac
rm alert-a.flac alert-b.flac
