#!/bin/sh
# Leaves a real `herald serve` alone for N minutes with its own PulseAudio (three null sinks, a
# radio), its own Mosquitto, seeded random traffic and faults, then checks what was accepted,
# heard and left changed (docs/development.md, "The soak"). Release build, as the .deb ships it.
#   scripts/soak.sh [--minutes N] [--seed S] [--rooms] [--few-faults]
# --few-faults: one fault every 30 minutes and a send every 2 to 8 s, not 1 to 5 (a soak of hours:
# RSS per daemon against its age, with traffic three rooms keep up with).
# Exits non-zero on any violation and prints the seed to replay it. As root the state folder is a
# small tmpfs of its own, so the disk-full faults run too.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The same link mode as scripts/package.sh, so CI builds these once for both.
swift build -c release --static-swift-stdlib --product herald >&2
swift build -c release --static-swift-stdlib --product herald-full >&2
swift build -c release --static-swift-stdlib --product herald-soak >&2
bin="$(swift build -c release --show-bin-path)"
HERALD_BIN="$bin/herald" exec stdbuf -oL "$bin/herald-soak" "$@"
