#!/usr/bin/env bash
# ctest "scenario: the CI recipe end to end": tools/ci-gate (docs/ci.md) as a CI job runs it.
#
#   ci_gate_test.sh BUILD_DIR OUTPUT_DIR
#
# Checked, each able to fail: without a baseline the gate refuses (exit 2, telling how to make one);
# --update-baseline builds dcsim in BUILD_DIR (up to date: nothing to do), runs and writes the baseline
# (summary.csv, replicas.csv, scenario.json, run.json, complete.json); the same code against it passes
# (exit 0) and its JUnit file (parsed by python3's xml.etree) has one testcase per gated row (goodput_frac
# of pretrain and of the cluster: 2) and no failure; an hour-long restart instead of ten minutes is a
# regression (exit 5, not 1) whose JUnit file counts a failure for both rows, each counted attribute
# matching the elements; a bad scenario value is a failure of another kind (exit 2), never 5.
# The build step builds the target dcsim in the test's own build tree: a no-op on a built checkout (as
# in CI); sources edited since the build are compiled then, so edit nothing while the suite runs.
set -euo pipefail

[[ $# -eq 2 ]] || { echo "usage: $0 BUILD_DIR OUTPUT_DIR" >&2; exit 2; }
build="$1"
out="$2"
src="$(cd "$(dirname "$0")/../.." && pwd)"
gate="$src/tools/ci-gate"
dcsim="$build/tools/dcsim"
rm -rf "$out"
mkdir -p "$out"
common=(--baseline "$out/repo/ci/baseline" --out "$out/ci" --replicas 4 --seed 1)

fail() { echo "FAIL: $*" >&2; exit 1; }
expect() { # expect CODE DESCRIPTION -- COMMAND...
  local want=$1 what=$2; shift 3
  local rc=0
  "$@" >"$out/last.log" 2>&1 || rc=$?
  cat "$out/last.log"
  [[ $rc -eq $want ]] || fail "$what: exit $rc, expected $want"
  echo "ok: $what (exit $rc)"
}

expect 2 "no baseline yet" -- "$gate" --dcsim "$dcsim" "${common[@]}"
grep -q "make it with tools/ci-gate --update-baseline" "$out/last.log" || fail "the refusal does not say how to make a baseline"

expect 0 "baseline written on purpose (with the build step)" -- "$gate" --build "$build" "${common[@]}" --update-baseline
for f in summary.csv replicas.csv scenario.json run.json complete.json; do
  [[ -f "$out/repo/ci/baseline/$f" ]] || fail "the baseline lacks $f"
done

# junit FILE TESTS FAILURES: the file parses, its counts match its elements and the expected numbers.
junit() {
  python3 - "$@" <<'PY'
import sys
import xml.etree.ElementTree as ET
path, tests, failures = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
root = ET.parse(path).getroot()
assert root.tag == "testsuites", root.tag
suites = root.findall("testsuite")
assert len(suites) == 1, len(suites)
cases = suites[0].findall("testcase")
failed = [c for c in cases if c.find("failure") is not None]
for node in (root, suites[0]):
    assert int(node.get("tests")) == len(cases), (node.get("tests"), len(cases))
    assert int(node.get("failures")) == len(failed), (node.get("failures"), len(failed))
assert len(cases) == tests, f"{len(cases)} testcases, expected {tests}"
assert len(failed) == failures, f"{len(failed)} failures, expected {failures}"
names = sorted((c.get("classname"), c.get("name")) for c in cases)
assert names == [("dcsim.compare.cluster", "goodput_frac"), ("dcsim.compare.pretrain", "goodput_frac")], names
for c in failed:
    assert c.find("failure").get("type") == "regression"
    assert "goodput_frac moved" in c.find("failure").get("message")
print(f"junit ok: {len(cases)} testcases, {len(failed)} failures")
PY
}

expect 0 "pass: the same code against its baseline" -- "$gate" --dcsim "$dcsim" "${common[@]}"
junit "$out/ci/compare.xml" 2 0
grep -q "PASS" "$out/last.log" || fail "no PASS line"

expect 5 "regression: 60-minute restarts" -- "$gate" --dcsim "$dcsim" "${common[@]}" -- --set operations.restart_s=3600
junit "$out/ci/compare.xml" 2 2
grep -q "REGRESSION" "$out/last.log" || fail "no REGRESSION line"
[[ -s "$out/ci/compare.html" ]] || fail "no compare page"

expect 2 "failure: a bad scenario value is not a regression" -- "$gate" --dcsim "$dcsim" "${common[@]}" -- --set operations.restart_s=-5
echo "ci-gate: every case as documented"
