#!/usr/bin/env bash
# Installs what is missing, builds everything once, runs the whole test suite and
# builds the documentation (failing on any DocC warning).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="/opt/swift/usr/bin:$PATH"

swift build --build-tests
swift test --skip-build 2>&1 | tee .build/test-output.txt
scripts/docs.sh
