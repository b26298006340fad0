#!/usr/bin/env bash
# ctest "scenario: slurm-sweep refuses values that would run as commands": tools/slurm-sweep writes its
# options into batch scripts, so a newline in any of them would start a line that bash runs. Each such
# value must be refused (exit 2) before a script is printed, and the injected command must not appear
# as a line of its own; a value after `--` that needs quoting stays one quoted word. No Slurm needed
# (--dry-run).
#
#   slurm_sweep_quoting_test.sh OUTPUT_DIR
set -uo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 OUTPUT_DIR" >&2; exit 2; }
src="$(cd "$(dirname "$0")/../.." && pwd)"
out="$1"
rm -rf "$out" && mkdir -p "$out"
fail() { echo "FAIL: $*" >&2; exit 1; }
evil=$'x\ntouch '"$out"'/pwned'
base=(--shards 2 --out "$out/shared" --dcsim /bin/true --dry-run)
for opt in --partition --account --time --merge-time; do
  printed="$("$src/tools/slurm-sweep" "${base[@]}" "$opt" "$evil" -- scenario.json 2>"$out/err")"
  rc=$?
  [[ $rc -eq 2 ]] || fail "$opt with a newline: exit $rc, expected 2"
  grep -q "control character" "$out/err" || fail "$opt: the message does not say why: $(cat "$out/err")"
  ! grep -q "^touch" <<<"$printed" || fail "$opt: the injected command is a line of the script"
done
printed="$("$src/tools/slurm-sweep" "${base[@]}" -- scenario.json --set "$evil" 2>"$out/err")"
rc=$?
[[ $rc -eq 2 ]] || fail "a sweep option with a newline: exit $rc, expected 2"
"$src/tools/slurm-sweep" "${base[@]}" --partition 'gpu;rm' -- scenario.json >/dev/null 2>&1
[[ $? -eq 2 ]] || fail "--partition 'gpu;rm' accepted"
# A value with spaces and quotes after -- is one quoted word: bash reads it back unchanged.
printed="$("$src/tools/slurm-sweep" "${base[@]}" --partition gpu -- scenario.json --set 'name=a b;$(id)')" ||
  fail "a quotable sweep option refused"
line="$(grep "^exec " <<<"$printed" | tail -1)" # the merge job's, on one line
eval "words=(${line#exec })"
[[ "${words[4]}" == 'name=a b;$(id)' ]] || fail "the option came back as '${words[4]}'"
[[ ! -e "$out/pwned" ]] || fail "the injected command ran"
# --recover (the merge job's) refuses a shard out of range, a folder it did not submit, and --retries junk.
mkdir -p "$out/rec/slurm" && printf 'shards=2\nretries=1\n' >"$out/rec/slurm/settings"
for args in "3|slurm-sweep: --recover: shard '3' is not one of 1..2" \
            "2|slurm-sweep: $out/rec/slurm/shard-2.tries or .job: missing (not a folder slurm-sweep submitted)"; do
  err="$("$src/tools/slurm-sweep" --recover "$out/rec" "${args%%|*}" 2>&1)"
  [[ $? -eq 2 && "$err" == "${args#*|}" ]] || fail "--recover ${args%%|*}: '$err'"
done
err="$("$src/tools/slurm-sweep" "${base[@]}" --retries 10 -- scenario.json 2>&1)"
[[ $? -eq 2 && "$err" == "slurm-sweep: --retries: expected a whole number from 0 to 9 (got '10')" ]] || fail "--retries 10: '$err'"
echo "ok"
