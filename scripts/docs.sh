#!/usr/bin/env bash
# Builds the DocC catalog in Documentation/ together with the symbol graphs of every
# library module; any DocC warning fails the build.
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

modules=(CanopyTree CanopyStorage CanopyWire CanopyWebSocket CanopySync Canopy CanopyRules CanopyServer)
# dump-symbol-graph extracts every module's graph from the build, cached or not.
swift package dump-symbol-graph --skip-inherited-docs >/dev/null
dumped="$(swift build --show-bin-path)/../symbolgraph"
graphs=.build/docs-symbol-graphs
rm -rf "$graphs" && mkdir -p "$graphs"
for m in "${modules[@]}"; do
    cp "$dumped/$m.symbols.json" "$graphs/"
    # Extensions of other modules' types, when there are any.
    for extension in "$dumped/$m@"*.symbols.json; do
        [ -e "$extension" ] && cp "$extension" "$graphs/"
    done
done
docc convert Documentation/Canopy.docc \
    --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name Canopy --fallback-bundle-identifier dev.canopy.Canopy \
    --output-path .build/Canopy.doccarchive \
    --warnings-as-errors
echo "docs: built .build/Canopy.doccarchive (${#modules[@]} modules, no warnings)"
