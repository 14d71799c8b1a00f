#!/usr/bin/env bash
# Builds the DocC catalog in Documentation/ together with the symbol graphs of every
# library module; any DocC warning fails the build.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

graphs=.build/symbol-graphs
rm -rf "$graphs" && mkdir -p "$graphs"
swift build --target Canopy --target CanopyServer \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs" \
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public >/dev/null
# Keep the library modules' graphs only (not the system libraries').
find "$graphs" -name 'C*.symbols.json' ! -name 'Canopy*' -delete
docc convert Documentation/Canopy.docc \
    --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name Canopy --fallback-bundle-identifier dev.canopy.Canopy \
    --output-path .build/Canopy.doccarchive \
    --warnings-as-errors
echo "docs: built .build/Canopy.doccarchive"
