#!/bin/sh
# Shows that scripts/module-graph.sh refuses what it promises to: it runs the script on the
# package's real description (must pass), then on doctored copies of it, each with one bad edge
# added (must exit 1 and name the edge). Run by scripts/test.sh; needs swift and python3 only.
set -eu
cd "$(dirname "$0")/.."
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT INT TERM
swift package describe --type json > "$scratch/describe.json"
scripts/module-graph.sh --describe "$scratch/describe.json" > /dev/null

# expect_refusal FROM TO MESSAGE: adds FROM -> TO to the description; the script must exit 1 and
# print MESSAGE.
expect_refusal() {
    python3 - "$scratch/describe.json" "$1" "$2" > "$scratch/doctored.json" <<'PY'
import json, sys
description = json.load(open(sys.argv[1]))
for target in description["targets"]:
    if target["name"] == sys.argv[2]:
        target.setdefault("target_dependencies", []).append(sys.argv[3])
print(json.dumps(description))
PY
    status=0
    scripts/module-graph.sh --describe "$scratch/doctored.json" > /dev/null 2> "$scratch/errors" || status=$?
    if [ "$status" -ne 1 ]; then
        echo "module-graph-test: $1 -> $2: expected exit 1, got $status" >&2
        exit 1
    fi
    if ! grep -qF "$3" "$scratch/errors"; then
        echo "module-graph-test: $1 -> $2: expected '$3' in:" >&2
        cat "$scratch/errors" >&2
        exit 1
    fi
}
# Down, but off the console's floor: directly, and through a module that is allowed itself.
expect_refusal HeraldFleet HeraldApp "HeraldFleet -> HeraldApp is forbidden (HeraldFleet -> HeraldApp)"
expect_refusal HeraldWeb Speech "HeraldFleet -> Speech is forbidden (HeraldFleet -> HeraldWeb -> Speech)"
# Up.
expect_refusal HeraldCore HeraldStore "HeraldCore -> HeraldStore points up"
echo "module-graph-test: ok"
