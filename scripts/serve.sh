#!/usr/bin/env bash
# Installs what is missing, builds the canopy executable and runs `canopy serve`
# with any arguments given to this script.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="/opt/swift/usr/bin:$PATH"
swift build -c release --product canopy
exec .build/release/canopy serve "$@"
