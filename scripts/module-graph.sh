#!/bin/sh
# Prints each target's dependencies on the package's own targets, as Package.swift declares them
# (`swift package describe --type json`), lowest layer first, then checks them:
# - every arrow points down: a module may depend only on modules of a lower layer;
# - the fleet console keeps its own floor: HeraldFleet may not reach, directly or through another
#   module, the hub's daemon, edges or audio (`forbidden` below), even where the arrow points down;
# - every target sits in a layer (place a new module there on purpose).
# Exits 1, naming the edge, when a check fails.
#   scripts/module-graph.sh                   the graph and the checks, of Package.swift
#   scripts/module-graph.sh --describe FILE   the same, of a saved `swift package describe --type json`
#                                             (scripts/module-graph-test.sh feeds it doctored copies)
set -eu
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--describe" ] && [ $# -eq 2 ]; then
    describe=$(cat "$2")
elif [ $# -eq 0 ]; then
    describe=$(swift package describe --type json)
else
    echo "usage: scripts/module-graph.sh [--describe FILE]" >&2
    exit 2
fi
printf '%s\n' "$describe" | python3 -c '
import json, sys

# Lowest first; a target may depend only on targets of a lower layer (docs/development.md).
layers = [
    ["CPulse", "CSndFile", "CEspeakNG", "CMosquitto", "CICal", "RuntimePaths", "Executors"],
    ["HeraldCore"],
    ["SoundFile"],
    ["PulseAudio", "Speech", "HeraldStore", "HeraldConfig", "HeraldCalendar"],
    ["HeraldMQTTClient", "HeraldWeb"],  # the broker client and the web edges shared by hub and console
    ["HeraldIntake"],  # the intake HTTP and MQTT share: it checks requests, the daemon takes them
    ["HeraldApp"],
    ["HeraldServer", "HeraldMQTT"],  # the two edges: neither imports the other
    ["HeraldFleet"],  # the fleet console: a broker client and an HTTP page of its own
    ["HeraldFront"],
    ["herald", "herald-full"],
    ["HeraldTesting"],  # for tests only: above every production target, so none may depend on it
    # Tools like the tests: the soak uses the seeded generator and free ports of HeraldTesting, the
    # bench the latency test bed the integration tests use.
    ["herald-soak", "herald-bench"],
]

# What a module may not reach at all, however the arrows point: the console runs on a server
# with PostgreSQL and a broker, with no sound card, no voices and no hub daemon.
forbidden = {
    "HeraldFleet": {"HeraldApp", "HeraldServer", "HeraldIntake", "HeraldMQTT",
                    "PulseAudio", "Speech", "SoundFile", "CPulse", "CEspeakNG", "CSndFile"},
}

layer = {name: index for index, names in enumerate(layers) for name in names}
targets = [t for t in json.load(sys.stdin)["targets"] if t["type"] != "test"]
dependencies = {t["name"]: sorted(t.get("target_dependencies", [])) for t in targets}
problems = []

def path_to(start, banned):
    """The first chain of dependencies from `start` to a module in `banned`, or None."""
    seen, stack = set(), [[start]]
    while stack:
        chain = stack.pop()
        for dep in dependencies.get(chain[-1], []):
            if dep in banned:
                return chain + [dep]
            if dep not in seen:
                seen.add(dep)
                stack.append(chain + [dep])
    return None

for target in sorted(targets, key=lambda t: (layer.get(t["name"], len(layers)), t["name"])):
    name, deps = target["name"], dependencies[target["name"]]
    listed = ", ".join(deps) if deps else "(none)"
    print(f"{name} -> {listed}")
    if name not in layer:
        problems.append(f"{name} is in no layer of scripts/module-graph.sh: add it where it belongs")
        continue
    for dep in deps:
        if dep in layer and layer[dep] < layer[name]:
            continue
        if dep in layer:
            way = "up" if layer[dep] > layer[name] else "sideways"
            problems.append(f"{name} -> {dep} points {way}")
    chain = path_to(name, forbidden.get(name, set()))
    if chain:
        problems.append(f"{name} -> {chain[-1]} is forbidden (" + " -> ".join(chain) + ")")
for problem in problems:
    print("error:", problem, file=sys.stderr)
sys.exit(1 if problems else 0)
'
