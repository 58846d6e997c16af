#!/bin/sh
# Installs the Debian packages Herald builds and tests with, when any is missing. Needs root.
set -eu
PACKAGES="pulseaudio pulseaudio-utils libpulse-dev libsndfile1-dev libsqlite3-dev libespeak-ng-dev espeak-ng pkg-config mosquitto mosquitto-clients libmosquitto-dev libical-dev radicale python3-prometheus-client systemd groff-base binutils chromium chromium-driver python3-selenium python3-venv openssl nodejs postgresql snapserver snapclient"
missing=""
for package in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing="$missing $package"
done
if [ -n "$missing" ]; then
    echo "installing:$missing" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
