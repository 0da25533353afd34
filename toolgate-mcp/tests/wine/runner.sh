#!/usr/bin/env bash
# Cargo's runner for toolgate-mcp's tests for Windows (build.sh,
# windows_tests): `wine TEST-BINARY ARGS...`, run once more when Wine could
# not start the process at all. That failure is exit status 66, the low byte of
# STATUS_DLL_INIT_FAILED (0xC0000142), with nothing printed: the test harness
# writes "running N tests" before any test runs, so a binary that printed
# nothing ran no test, and running it again hides no test's result. It
# happened once in 19 runs here on a fresh prefix (tests/README.md, "toolgate-mcp
# on Windows, under Wine"); WINEDEBUG's err+module names the DLL.
set -uo pipefail
out=$(mktemp)
trap 'rm -f "$out"' EXIT
wine "$@" | tee "$out"
status=${PIPESTATUS[0]}
if [ "$status" -eq 66 ] && [ ! -s "$out" ]; then
  echo "wine could not start $(basename "$1") (exit 66, nothing printed: a DLL failed to initialise); running it once more" >&2
  wine "$@"
  status=$?
fi
exit "$status"
