#!/bin/sh
# Herald's main job on this machine, from nothing: installs what is missing, starts a PulseAudio
# server with a null sink if none answers, builds, plays a sample, a sentence and a payment with
# the safeguard, then runs the daemon (`herald serve`) in the foreground, all on the built-in
# defaults (SQLite under ~/.local/state/herald, the default sink, no config file). Needs root for apt.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh

if ! pactl info >/dev/null 2>&1; then
    echo "no PulseAudio server answers: starting one with a null sink" >&2
    pulseaudio -D --exit-idle-time=-1 -n -L "module-null-sink sink_name=herald_null" -L module-native-protocol-unix
    # pactl info answers once the socket is up.
    tries=0
    until pactl info >/dev/null 2>&1; do
        tries=$((tries + 1)); [ $tries -lt 50 ] || { echo "PulseAudio did not start" >&2; exit 1; }
        sleep 0.1
    done
fi
if [ -z "$(pactl list short sinks)" ]; then
    echo "the server has no sink: loading a null sink" >&2
    pactl load-module module-null-sink sink_name=herald_null >/dev/null
fi

# `herald` is the lean front; it runs herald-full for every command but a say/pay a daemon takes.
swift build --product herald
swift build --product herald-full
herald="$(swift build --show-bin-path)/herald"
"$herald" status
"$herald" play Sounds/samples/two-tone-chime.wav
"$herald" say "Herald is ready."
"$herald" pay 25.30
"$herald" history --limit 3

# The main job: the daemon, on the built-in defaults (no config file), in the foreground.
cat >&2 <<'TRY'

Starting `herald serve` on the built-in defaults (http://127.0.0.1:7370). Ctrl-C stops it.
From another terminal:
  curl --json '{"payment": {"amount": "25.30"}, "priority": "high"}' localhost:7370/v1/announcements
  curl localhost:7370/v1/status
TRY
exec "$herald" serve
