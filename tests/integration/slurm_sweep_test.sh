#!/usr/bin/env bash
# ctest "scenario: sweep on a local Slurm cluster": tools/slurm-sweep submits a 9-point sweep as an array
# of 4 tasks plus a merge job to a real one-node Slurm cluster (tools/slurm-local, started and always
# stopped here), and the merged sweep.csv must equal a one-machine `dcsim sweep` of the same points byte
# for byte.
#
#   slurm_sweep_test.sh DCSIM_BINARY OUTPUT_DIR
#
# Checked, each able to fail: the jobs carry slurm-sweep's --partition, --account, --time (--merge-time
# for the merge) and --cpus-per-task as scontrol shows them; the 4 array tasks each ran as a Slurm job
# (scontrol lists tasks 1..4 of the array, COMPLETED with exit 0:0) and ran its round-robin share of the
# 9 points (task 1: points 0, 4, 8; tasks 2-4: 2 points each, as its log says); the merge job started
# only after the last task ended (afterany) and completed; sweep.csv is byte-identical to the one-machine
# sweep; after `tools/slurm-local stop` none of the daemons it started is alive.
# Failed shards, injected by a wrapper around dcsim (tests/integration/flaky-dcsim: array task 2's sweep
# exits 1, once or every time), 3 shards of the same sweep at 1 replica:
#   - failing once with --retries 1: the merge job finds shard 2 without its completion marker, resubmits
#     it alone (shard-2.retry-1.log; no other shard re-runs) with a new merge job, which writes the
#     one-machine sweep.csv byte for byte; merge.log names the job, its state FAILED and the log;
#   - failing every time with --retries 1: the second merge job stops with the exact error naming shard
#     2/3, its 2 attempts, the resubmitted job and shard-2.retry-1.log, ends FAILED (exit 1), and no
#     sweep.csv (in any form) is written.
# Without root or the Slurm packages the test is skipped (exit 77), except under CI=true, where it fails.
set -euo pipefail

[[ $# -eq 2 ]] || { echo "usage: $0 DCSIM_BINARY OUTPUT_DIR" >&2; exit 2; }
dcsim="$1"
out="$2"
src="$(cd "$(dirname "$0")/../.." && pwd)"
scenario="$src/scenarios/restart-checkpoint-sweep.json"
sweep_args=("$scenario" --replicas 3)
TIMEOUT_S=180

fail() { echo "FAIL: $*" >&2; exit 1; }

missing=""
[[ "$(id -u)" -eq 0 ]] || missing="root (slurmd runs jobs as their users)"
for c in munged mungekey slurmctld slurmd sbatch squeue sinfo scontrol scancel; do
  command -v "$c" >/dev/null || missing+="${missing:+, }$c"
done
if [[ -n "$missing" ]]; then
  msg="a local Slurm cluster needs root and Debian's slurmctld slurmd slurm-client munge (tools/dev.sh test"
  msg+=" installs them); missing: $missing"
  [[ "${CI:-}" == "true" ]] && fail "$msg"
  echo "SKIP: $msg" >&2
  exit 77
fi

# Only this cluster counts: no inherited Slurm settings (SBATCH_PARTITION, SLURM_CONF of another cluster).
for v in $(compgen -e | grep -E '^(SLURM|SBATCH|SQUEUE|SINFO|SCONTROL)_' || true); do unset "$v"; done

rm -rf "$out"
mkdir -p "$out"
# munged's socket path must stay short (a UNIX socket path has at most 107 bytes): the cluster lives in /tmp.
# munged wants every folder above its socket searchable by all (mktemp -d makes a 0700 one).
cluster="$(mktemp -d /tmp/dcsim-slurm.XXXXXX)"
chmod 0755 "$cluster"
started_pids=""
cleanup() {
  local rc=$? pid state
  "$src/tools/slurm-local" stop "$cluster" || rc=1
  for pid in $started_pids; do
    state="$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$pid/status" 2>/dev/null || true)"
    if [[ -n "$state" && "$state" != Z ]]; then
      echo "FAIL: a daemon started by tools/slurm-local (pid $pid) is still alive after stop" >&2
      rc=1
    fi
  done
  [[ $rc -eq 0 ]] || { cp -r "$cluster/log" "$out/cluster-log" 2>/dev/null || true; }
  rm -rf "$cluster"
  exit "$rc"
}
trap cleanup EXIT

t0=$SECONDS
exports="$("$src/tools/slurm-local" start "$cluster")" || fail "tools/slurm-local start failed (see above)"
[[ "$exports" == "export SLURM_CONF=$cluster/slurm.conf" ]] || fail "slurm-local start printed '$exports'"
export SLURM_CONF="$cluster/slurm.conf"
for f in "$cluster"/run/*.pid; do started_pids+=" $(cat "$f")"; done
echo "cluster up in $((SECONDS - t0)) s (daemons:$started_pids)"

t1=$SECONDS
submitted="$(cd "$out" && "$src/tools/slurm-sweep" --shards 4 --out "$out/shared" --partition local \
  --account planning --time 00:10:00 --merge-time 00:05:00 --cpus-per-task 1 --dcsim "$dcsim" \
  -- "${sweep_args[@]}")"
echo "$submitted"
pattern='^submitted array job ([0-9]+) \(4 tasks\) and merge job ([0-9]+) \(afterany:([0-9]+),'
[[ "$submitted" =~ $pattern ]] || fail "unexpected slurm-sweep output"
array_id="${BASH_REMATCH[1]}"
merge_id="${BASH_REMATCH[2]}"
[[ "${BASH_REMATCH[3]}" == "$array_id" ]] ||
  fail "the merge depends on job ${BASH_REMATCH[3]}, not on the array $array_id"

fail_with_logs() {
  squeue >&2 || true
  scontrol -o show job >&2 || true
  for f in "$out"/shared/slurm/*.log "$cluster"/log/slurmctld.log "$cluster"/log/slurmd.log; do
    [[ -f "$f" ]] && { echo "---- $f (last 30 lines) ----" >&2; tail -n 30 "$f" >&2; }
  done
  fail "$@"
}

fields() { # fields LINE NAME...: the values of NAME=... in one `scontrol -o show job` line, space-separated
  local line="$1" name values=()
  shift
  for name in "$@"; do values+=("$(tr ' ' '\n' <<<"$line" | sed -n "s/^$name=//p" | head -n 1)"); done
  echo "${values[*]}"
}

state=""
while ((SECONDS - t1 < TIMEOUT_S)); do
  line="$(scontrol -o show job "$merge_id" 2>/dev/null || true)"
  state="$(fields "$line" JobState)"
  case "$state" in
    COMPLETED) break ;;
    PENDING | CONFIGURING | RUNNING | COMPLETING) ;;
    *) fail_with_logs "merge job $merge_id ended $state" ;;
  esac
  sleep 0.5
done
[[ "$state" == COMPLETED ]] || fail_with_logs "merge job $merge_id not complete after $TIMEOUT_S s ('$state')"
echo "array and merge done in $((SECONDS - t1)) s"

merge_line="$(scontrol -o show job "$merge_id")"
got="$(fields "$merge_line" ExitCode Partition Account TimeLimit)"
[[ "$got" == "0:0 local planning 00:05:00" ]] ||
  fail_with_logs "merge job: exit code, partition, account, time limit '$got', expected" \
    "'0:0 local planning 00:05:00'"
merge_start="$(fields "$merge_line" StartTime)"
tasks=""
while read -r line; do
  task="$(fields "$line" ArrayTaskId)"
  got="$(fields "$line" JobState ExitCode Partition Account TimeLimit NumCPUs)"
  [[ "$got" == "COMPLETED 0:0 local planning 00:10:00 1" ]] ||
    fail_with_logs "array task $task: '$got', expected 'COMPLETED 0:0 local planning 00:10:00 1'"
  end="$(fields "$line" EndTime)"
  [[ ! "$merge_start" < "$end" ]] || fail "the merge started at $merge_start, before task $task ended ($end)"
  tasks+="$task "
done < <(scontrol -o show job "$array_id")
tasks="$(tr ' ' '\n' <<<"$tasks" | sed '/^$/d' | sort -n | tr '\n' ' ')"
[[ "$tasks" == "1 2 3 4 " ]] || fail_with_logs "the array ran tasks '${tasks}', expected '1 2 3 4 '"
for task in 1 2 3 4; do
  points=2
  [[ $task -eq 1 ]] && points=3
  grep -q "shard $task/4: $points points, $points to run" "$out/shared/slurm/shard-$task.log" ||
    fail_with_logs "shard-$task.log does not say it ran $points points as shard $task/4"
done

"$dcsim" sweep "${sweep_args[@]}" -j 2 -q --out "$out/whole" >/dev/null || fail "the one-machine sweep failed"
rows=$(wc -l <"$out/whole/sweep.csv")
[[ $rows -gt 9 ]] || fail "the one-machine sweep.csv has $rows lines: no header and rows for every point?"
cmp "$out/whole/sweep.csv" "$out/shared/sweep.csv" ||
  fail "sweep.csv from Slurm differs from the one-machine sweep"
echo "4 Slurm array tasks and the merge gave the one-machine sweep.csv ($rows lines)," \
  "$((SECONDS - t0)) s so far"

# ---- Failed shards: resubmitted once, or reported with their log.
"$dcsim" sweep "$scenario" --replicas 1 -j 2 -q --out "$out/whole-1" >/dev/null || fail "the one-machine sweep failed"
wait_idle() { # until no job of this cluster is left, or fail
  local t=$SECONDS
  while [[ -n "$(squeue -h -o %i)" ]]; do
    ((SECONDS - t < TIMEOUT_S)) || fail_with_logs "jobs still queued after $TIMEOUT_S s"
    sleep 0.5
  done
}
submit_flaky() { # submit_flaky DIR once|always: 3 shards, --retries 1, task 2 fails as told
  local submitted
  submitted="$(cd "$out" && DCSIM_FAIL_TASK=2 DCSIM_FAIL_MODE="$2" DCSIM_FAIL_STATE="$1.failed" \
    DCSIM_REAL="$dcsim" "$src/tools/slurm-sweep" --shards 3 --retries 1 --out "$1" --partition local \
    --dcsim "$src/tests/integration/flaky-dcsim" -- "$scenario" --replicas 1)"
  [[ "$submitted" =~ ^submitted\ array\ job\ ([0-9]+) ]] || fail "unexpected slurm-sweep output: $submitted"
  echo "${BASH_REMATCH[1]}"
}
t2=$SECONDS
first="$(submit_flaky "$out/once" once)"
wait_idle
logs="$out/once/slurm"
grep -q "injected failure of shard 2" "$logs/shard-2.log" || fail_with_logs "shard 2 did not fail on its first try"
want="slurm-sweep: shard 2/3 did not complete (job ${first}_2: FAILED, exit code 1:0; log $logs/shard-2.log):"
want+=" resubmitting it (attempt 2 of 2)"
grep -qxF "$want" "$logs/merge.log" || fail_with_logs "merge.log does not say '$want': $(cat "$logs/merge.log")"
grep -q "shard 2/3: 3 points, 3 to run" "$logs/shard-2.retry-1.log" ||
  fail_with_logs "the resubmitted shard 2 did not run its 3 points"
got="$(cd "$logs" && ls -- *.retry-1.log | tr '\n' ' ')"
[[ "$got" == "merge.retry-1.log shard-2.retry-1.log " ]] || fail "resubmitted logs '$got', expected shard 2's and a merge's"
grep -q "outputs written to" "$logs/merge.retry-1.log" || fail_with_logs "the second merge did not merge"
cmp "$out/whole-1/sweep.csv" "$out/once/sweep.csv" || fail "sweep.csv after a resubmitted shard differs from the one-machine sweep"
echo "a shard failing once: resubmitted, merged byte-identical ($((SECONDS - t2)) s)"

t3=$SECONDS
first="$(submit_flaky "$out/always" always)"
wait_idle
logs="$out/always/slurm"
pattern='resubmitted shard\(s\) 2 as array job ([0-9]+) and merge job ([0-9]+) \(afterany:'
[[ "$(cat "$logs/merge.log")" =~ $pattern ]] || fail_with_logs "merge.log does not say it resubmitted shard 2"
second="${BASH_REMATCH[1]}"
last_merge="${BASH_REMATCH[2]}"
want="slurm-sweep: shard 2/3 did not complete after 2 attempt(s) (job ${second}_2: FAILED, exit code 1:0): see $logs/shard-2.retry-1.log"
grep -qxF "$want" "$logs/merge.retry-1.log" ||
  fail_with_logs "merge.retry-1.log does not say '$want': $(cat "$logs/merge.retry-1.log")"
grep -qxF "slurm-sweep: 1 of 3 shard(s) failed past --retries 1: nothing merged, no sweep.csv written; fix the cause and submit the same command again (complete points are skipped)" \
  "$logs/merge.retry-1.log" || fail_with_logs "merge.retry-1.log lacks the closing error"
got="$(fields "$(scontrol -o show job "$last_merge")" JobState ExitCode)"
[[ "$got" == "FAILED 1:0" ]] || fail_with_logs "the last merge job ended '$got', expected 'FAILED 1:0'"
[[ -z "$(ls "$out/always" | grep '^sweep\.csv')" ]] || fail "a sweep.csv was written despite a failed shard"
[[ ! -e "$logs/shard-2.retry-2.log" && ! -e "$logs/merge.retry-2.log" ]] || fail "shard 2 was resubmitted past --retries 1"
echo "a shard failing every time: stopped after 2 attempts naming it and its log ($((SECONDS - t3)) s)"
echo "PASS: Slurm sweep merged byte-identical, a failed shard resubmitted or reported, $((SECONDS - t0)) s in all"
