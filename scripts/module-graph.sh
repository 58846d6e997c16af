#!/bin/sh
# Prints each target's dependencies on the package's own targets, as Package.swift declares them
# (`swift package describe --type json`), lowest layer first, then checks that every arrow points
# down: a module may depend only on modules of a lower layer. Exits 1 on an edge that points up or
# sideways, or on a target missing from the layers below (place a new module there on purpose).
#   scripts/module-graph.sh            the graph and the check
set -eu
cd "$(dirname "$0")/.."
swift package describe --type json | python3 -c '
import json, sys

# Lowest first; a target may depend only on targets of a lower layer (docs/development.md).
layers = [
    ["CPulse", "CSndFile", "CEspeakNG", "CMosquitto", "RuntimePaths", "Executors"],
    ["HeraldCore"],
    ["SoundFile"],
    ["PulseAudio", "Speech", "HeraldStore", "HeraldConfig"],
    ["HeraldIntake"],  # the intake HTTP and MQTT share: it checks requests, the daemon takes them
    ["HeraldApp"],
    ["HeraldServer", "HeraldMQTT"],  # the two edges: neither imports the other
    ["HeraldFleet"],  # the fleet console: a broker client and an HTTP page of its own
    ["HeraldFront"],
    ["herald", "herald-full", "herald-bench"],
    ["HeraldTesting"],  # for tests only: above every production target, so none may depend on it
    ["herald-soak"],  # a tool like the tests: it uses the seeded generator and free ports of HeraldTesting
]

layer = {name: index for index, names in enumerate(layers) for name in names}
targets = [t for t in json.load(sys.stdin)["targets"] if t["type"] != "test"]
problems = []
for target in sorted(targets, key=lambda t: (layer.get(t["name"], len(layers)), t["name"])):
    name, deps = target["name"], sorted(target.get("target_dependencies", []))
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
for problem in problems:
    print("error:", problem, file=sys.stderr)
sys.exit(1 if problems else 0)
'
