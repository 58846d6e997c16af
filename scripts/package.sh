#!/bin/sh
# Builds dist/herald_VERSION_ARCH.deb: a release `herald` with the Swift runtime linked in
# (--static-swift-stdlib), so a shop's box installs it with apt and no Swift toolchain. `herald`
# is the lean front (say/pay straight to a running daemon); it runs /usr/libexec/herald/herald-full
# for everything else.
#   scripts/package.sh            # about 8 to 10 minutes on 2 cores (the release build)
#   apt install ./dist/herald_*.deb
# The package holds /usr/bin/herald, /usr/libexec/herald/herald-full, Sounds (chimes, voice
# packs, samples) in /usr/share/herald,
# the commented example config, the systemd user unit, man pages and bash/zsh/fish completions
# generated from the argument parser, and Depends on the Debian libraries herald-full links.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh >&2
swift build -c release --static-swift-stdlib --product herald >&2
swift build -c release --static-swift-stdlib --product herald-full >&2
bin="$(swift build -c release --show-bin-path 2>/dev/null)/herald"
full="${bin}-full"
version="$("$bin" --version)"
arch="$(dpkg --print-architecture)"
out="dist"
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT INT TERM

# What the Swift runtime would have been: none of it may be left to load from a toolchain.
for binary in "$bin" "$full"; do
    if ldd "$binary" | grep -Eq 'libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime|/opt/swift'; then
        echo "package: $binary still links the Swift runtime dynamically:" >&2
        ldd "$binary" | grep -E 'swift|Foundation|dispatch|Blocks' >&2
        exit 1
    fi
done

install -D -m 0755 "$bin" "$root/usr/bin/herald"
install -D -m 0755 "$full" "$root/usr/libexec/herald/herald-full"
strip --strip-unneeded "$root/usr/bin/herald" "$root/usr/libexec/herald/herald-full"
mkdir -p "$root/usr/share/herald"
cp -R Sounds "$root/usr/share/herald/Sounds"
# The natural voice is installed by the user (PyPI, ~290 MB): docs/voices.md, "A natural voice".
install -D -m 0755 scripts/install-voice.sh "$root/usr/share/herald/install-voice.sh"
install -D -m 0644 Config/herald.yaml "$root/usr/share/doc/herald/examples/herald.yaml"
install -D -m 0644 Config/herald.service "$root/usr/lib/systemd/user/herald.service"
install -D -m 0644 README.md "$root/usr/share/doc/herald/README.md"
for page in docs/*.md docs/*.png; do install -D -m 0644 "$page" "$root/usr/share/doc/herald/$page"; done
install -D -m 0644 Config/mosquitto-acl.example "$root/usr/share/doc/herald/examples/mosquitto-acl.example"

# Completions, from the argument parser itself.
"$bin" --generate-completion-script bash | install -D -m 0644 /dev/stdin "$root/usr/share/bash-completion/completions/herald"
"$bin" --generate-completion-script zsh | install -D -m 0644 /dev/stdin "$root/usr/share/zsh/vendor-completions/_herald"
"$bin" --generate-completion-script fish | install -D -m 0644 /dev/stdin "$root/usr/share/fish/vendor_completions.d/herald.fish"

# Man pages: one per command, from the same help text (`--experimental-dump-help`).
mkdir -p "$root/usr/share/man/man1"
"$bin" --experimental-dump-help | python3 scripts/manpages.py "$version" "$root/usr/share/man/man1"
gzip -9n "$root"/usr/share/man/man1/*.1

# Depends: the Debian package of each library the binaries themselves name (NEEDED: glibc, libpulse,
# libsndfile, libespeak-ng, libmosquitto, libsqlite3, libstdc++...), at least the version built
# against; what those load in turn is their packages' own Depends.
depends=""
for needed in $(objdump -p "$bin" "$full" | awk '$1 == "NEEDED" { print $2 }' | sort -u); do
    # The dynamic loader comes with libc6, which libc.so.6 adds anyway.
    case "$needed" in ld-linux*) continue ;; esac
    library="$(ldd "$bin" "$full" | awk -v name="$needed" '$1 == name && $2 == "=>" { print $3 }' | head -n1)"
    [ -n "$library" ] || { echo "package: $needed is not found on this machine" >&2; exit 1; }
    # Merged /usr: dpkg may know a library by either of its two paths.
    package="$(dpkg -S "$library" 2>/dev/null | head -n1 | cut -d: -f1)"
    [ -n "$package" ] || package="$(dpkg -S "$(readlink -f "$library")" 2>/dev/null | head -n1 | cut -d: -f1)"
    [ -n "$package" ] || { echo "package: no Debian package owns $library" >&2; exit 1; }
    installed="$(dpkg-query -W -f='${Version}' "$package")"
    case ",$depends," in *", $package ("*) continue ;; esac
    depends="$depends, $package (>= ${installed%%-*})"
done
depends="${depends#, }, espeak-ng-data"
size="$(du -sk "$root" | cut -f1)"
mkdir -p "$root/DEBIAN"
cat > "$root/DEBIAN/control" <<CONTROL
Package: herald
Version: $version
Architecture: $arch
Maintainer: Herald developers <herald@localhost>
Installed-Size: $size
Depends: $depends
Recommends: pulseaudio | pipewire-pulse, pulseaudio-utils
Suggests: python3-venv
Section: sound
Priority: optional
Description: speaks payments and reminders out loud, and makes sure they are heard
 Herald announces payments ("Payment received: twenty-five dollars") and reminders on a
 PulseAudio or PipeWire sink: a muted sink is unmuted, a quiet one raised, other audio ducked,
 and everything is put back afterwards, even after a crash. Includes the herald serve daemon
 (HTTP API, MQTT, Prometheus metrics) and a systemd user unit.
CONTROL
mkdir -p "$out"
deb="$out/herald_${version}_${arch}.deb"
dpkg-deb --root-owner-group --build "$root" "$deb" >/dev/null
echo "$deb"
