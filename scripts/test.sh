#!/usr/bin/env bash
# Installs what is missing, builds everything once, runs the whole test suite (Swift tests,
# then the interop suite: the official Python Admin SDK against `canopy serve`) and builds
# the documentation (failing on any DocC warning). Every step runs even when an earlier one
# fails; a summary at the end names each step's result, and any failure fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="/opt/swift/usr/bin:$PATH"

swift build --build-tests

results=()
failures=0
step() {
    local name=$1 status=0
    shift
    echo "== $name"
    "$@" || status=$?
    if ((status == 0)); then
        results+=("ok      $name")
    else
        results+=("FAILED  $name (exit status $status)")
        failures=$((failures + 1))
    fi
}
swift_tests() { swift test --skip-build 2>&1 | tee .build/test-output.txt; }
interop_tests() { scripts/interop.sh 2>&1 | tee .build/interop-output.txt; }

step "swift test" swift_tests
step "interop (firebase-admin against canopy serve)" interop_tests
step "documentation" scripts/docs.sh

summary_line() {
    local label=$1 pattern=$2 file=$3 line
    line=$(grep -hE "$pattern" "$file" 2>/dev/null | tail -1) || line="no summary line (see $file)"
    echo "$label: $line"
}
echo
echo "== summary"
summary_line "swift test" 'Test run with [0-9]+ tests?' .build/test-output.txt
summary_line "interop" '(^|= )[0-9]+ (passed|failed|errors?|skipped)|no tests ran' .build/interop-output.txt
printf '%s\n' "${results[@]}"

# One closing line over both suites: Swift Testing's count and failed tests, pytest's counts.
swift_total=$(grep -hoE 'Test run with [0-9]+ tests?' .build/test-output.txt 2>/dev/null | tail -1 | grep -oE '[0-9]+') || swift_total=0
swift_failed=$(grep -cE '^✘ Test .* failed after' .build/test-output.txt 2>/dev/null) || swift_failed=0
py_passed=$(grep -hoE '[0-9]+ passed' .build/interop-output.txt 2>/dev/null | tail -1 | grep -oE '[0-9]+') || py_passed=0
py_failed=$(grep -hoE '[0-9]+ (failed|errors?)' .build/interop-output.txt 2>/dev/null | awk '{s += $1} END {print s + 0}') || py_failed=0
passed=$((swift_total - swift_failed + py_passed))
failed=$((swift_failed + py_failed))
if ((failures)); then
    echo "test.sh: $failures step(s) FAILED" >&2
    echo "tests: $passed passed, $failed failed"
    exit 1
fi
echo "test.sh: all steps passed"
echo "tests: $passed passed, $failed failed"
