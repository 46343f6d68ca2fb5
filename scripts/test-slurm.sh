#!/usr/bin/env bash
# The Slurm path of vkstat survey, for real: a one-node Slurm cluster on
# this machine (munged, slurmctld, slurmd from Debian's slurm-wlm and munge,
# started here from a generated slurm.conf in a temporary folder, no
# systemd, no cgroups, no accounting), 20 synthetic targets and one whose
# cube is missing, the survey in one process, the same survey as a 4-task
# sbatch array of shards (deploy/slurm/submit-survey.sh) and its dependent
# merge job, and the merged table compared byte for byte with the
# one-process table; then a stack of 7 dates as a 3-task array of
# --partial shards (deploy/slurm/submit-stack.sh) and its merge, against
# one stack run. The daemons are stopped on exit, whatever happens.
#
#   scripts/test-slurm.sh [bin/vkstat]
#
# Needs root (slurmd runs jobs as their user; without root it says so and
# skips, except under CI=true, where it fails) and the packages slurm-wlm
# and munge (scripts/deps.sh test installs them). Takes about 15 s on two
# cores. TIMEOUT (seconds, default 240) bounds the wait for the jobs.
set -euo pipefail
vkstat=$(realpath "${1:-bin/vkstat}")
repo=$(cd "$(dirname "$0")/.." && pwd)
timeout=${TIMEOUT:-240}

fail() {
	echo "test-slurm: FAIL: $*" >&2
	exit 1
}
[ -x "$vkstat" ] || fail "$vkstat is not an executable (make build first)"
if [ "$(id -u)" != 0 ]; then
	# slurmd must run as root to start jobs. CI (CI=true, as root) always
	# runs this; elsewhere a non-root `make test` says it left it out.
	[ "${CI:-}" = true ] && fail "needs root: slurmd must run as root to start jobs"
	echo "test-slurm: SKIPPED: needs root (slurmd must run as root to start jobs); run: sudo scripts/test-slurm.sh $vkstat" >&2
	exit 0
fi
for c in munged slurmctld slurmd sbatch squeue scontrol; do
	command -v "$c" >/dev/null || fail "no $c: install slurm-wlm and munge (scripts/deps.sh test)"
done

tmp=$(mktemp -d /tmp/vkstat-slurm.XXXXXX)
chmod 755 "$tmp"
pids=()
cleanup() {
	local rc=$?
	# Stop the daemons this script started, by their pid, newest first.
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		kill "${pids[i]}" 2>/dev/null || true
	done
	for p in "${pids[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null || true
	done
	if [ "$rc" != 0 ]; then
		for f in "$tmp"/log/*.log "$tmp"/slurm/out/slurm-*.out; do
			[ -f "$f" ] && { echo "--- $f (last lines)"; tail -n 20 "$f"; } >&2
		done
	fi
	rm -rf "$tmp"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$tmp"/{munge,log,state,spool,slurm}
chmod 755 "$tmp/munge"
# Ports no other Slurm on this machine is likely to use.
base=$((20000 + RANDOM % 20000))
ctld_port=$base
slurmd_port=$((base + 1))

# munge: a fresh key, its socket in the temporary folder.
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
sock=$tmp/munge/munge.socket
munged --foreground --force --key-file="$tmp/munge/munge.key" --socket="$sock" \
	--pid-file="$tmp/munge/munged.pid" --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge/seed" >"$tmp/log/munged.stdout" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || fail "munged did not start"

node=$(hostname -s)
# The node's CPUs and memory as slurmd sees them.
read -r cpus mem < <(slurmd -C | awk '/^NodeName/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } print v["CPUs"], v["RealMemory"] }')
cat >"$tmp/slurm.conf" <<EOF
ClusterName=vkstattest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" >"$tmp/log/slurmctld.stdout" 2>&1 &
pids+=($!)
slurmd -D -N "$node" -f "$SLURM_CONF" >"$tmp/log/slurmd.stdout" 2>&1 &
pids+=($!)
up=
for _ in $(seq 100); do
	if sinfo -h -o '%t' 2>/dev/null | grep -Eq '^(idle|mix|alloc)'; then
		up=1
		break
	fi
	sleep 0.2
done
[ -n "$up" ] || fail "the node did not come up: $(sinfo 2>&1 | tail -n 2)"
echo "test-slurm: one-node cluster up: $node, $cpus CPUs, ports $ctld_port/$slurmd_port"

# 20 small targets and one whose cube is missing; the survey in one
# process, which exits 3 (a target failed, the table is written).
data=$tmp/data
"$vkstat" synth survey --targets 20 --size 48 --frames 32 --out-dir "$data" >/dev/null
echo "t00-missing,t00/cube.fits,t01/angles.fits,t01/psf.fits," >>"$data/manifest.csv"
flags=(--device cpu --radius 3)
rc=0
"$vkstat" survey run "$data/manifest.csv" --out-dir "$tmp/one" "${flags[@]}" >"$tmp/one.stdout" 2>"$tmp/one.stderr" || rc=$?
[ "$rc" = 3 ] || fail "one-process survey: exit $rc, want 3 (one target fails): $(tail -n 5 "$tmp/one.stderr")"

# The same survey as 4 shards on Slurm, and the dependent merge job: the
# shard with the failed target exits 3 and is merged all the same.
out=$tmp/slurm/out
read -r array merge < <(VKSTAT=$vkstat VKSTAT_FLAGS="${flags[*]}" "$repo/deploy/slurm/submit-survey.sh" "$data/manifest.csv" "$out" 4)
echo "test-slurm: submitted array job $array (4 shards) and merge job $merge"
deadline=$((SECONDS + timeout))
while [ -n "$(squeue -h -j "$array,$merge" -o %i 2>/dev/null)" ]; do
	[ $SECONDS -lt $deadline ] || fail "jobs still queued or running after ${timeout}s: $(squeue 2>&1)"
	sleep 0.5
done
for i in 1 2 3 4; do
	[ -f "$out/survey-shard-$i-of-4.json" ] || fail "shard $i of 4 wrote no table"
done
[ -f "$out/survey.csv" ] || fail "the merge job wrote no survey.csv: $(cat "$out"/slurm-*-merge.out 2>/dev/null)"
cmp "$tmp/one/survey.csv" "$out/survey.csv" || fail "survey.csv: the merged table differs from the one-process table"
cmp "$tmp/one/survey.json" "$out/survey.json" || fail "survey.json: the merged table differs from the one-process table"
rows=$(($(wc -l <"$out/survey.csv") - 1))
[ "$rows" = 21 ] || fail "survey.csv has $rows rows, want 21"
ok=$(grep -c ',ok,' "$out/survey.csv" || true)
[ "$ok" = 20 ] || fail "$ok of 20 targets ok"
grep -q '^21,t00-missing,failed,cube: .*no such file' "$out/survey.csv" || fail "no failed row naming the missing cube: $(tail -n 1 "$out/survey.csv")"
hosts=$(cut -d, -f4 "$out/survey-timings.csv" | tail -n +2 | sort -u | tr '\n' ' ')
echo "test-slurm: ok: 4 Slurm shards merged give the one-process table byte for byte (20 targets ok, 1 failed as it should; ran on: $hosts)"

# A stack of 7 dates as 3 Slurm shards of its dates (deploy/slurm/submit-
# stack.sh: stack --partial per task, then vkstat merge), against one stack
# run over every date.
sdata=$tmp/stackdata
"$vkstat" synth stack --dates 7 --shape 24,16 --type cfloat32 --format envi --out-dir "$sdata" >/dev/null
ls "$sdata"/date_*.bin >"$tmp/dates.txt"
sflags="--looks 2x2 --filter boxcar --filter-size 3 --format npy"
# shellcheck disable=SC2086 # a list of flags
"$vkstat" --device cpu stack $sflags --out-dir "$tmp/stack-one" "@$tmp/dates.txt" >/dev/null
sout=$tmp/slurm/stack
read -r sarray smerge < <(VKSTAT=$vkstat VKSTAT_FLAGS="--device cpu" STACK_FLAGS="$sflags" "$repo/deploy/slurm/submit-stack.sh" "$tmp/dates.txt" "$sout" 3)
echo "test-slurm: submitted array job $sarray (3 stack shards) and merge job $smerge"
while [ -n "$(squeue -h -j "$sarray,$smerge" -o %i 2>/dev/null)" ]; do
	[ $SECONDS -lt $deadline ] || fail "stack jobs still queued or running after ${timeout}s: $(squeue 2>&1)"
	sleep 0.5
done
for st in mean std cv min max count; do
	[ -f "$sout/$st.npy" ] || fail "the stack merge job wrote no $st.npy: $(cat "$sout"/slurm-*-merge.out 2>/dev/null)"
done
"${PYTHON:-/usr/bin/python3}" - "$tmp/stack-one" "$sout" <<'PY' || fail "the merged stack statistics differ from one run's"
import sys
import numpy as np
one, merged = sys.argv[1:]
for st in ("mean", "std", "cv", "min", "max", "count"):
    a, b = np.load(f"{one}/{st}.npy"), np.load(f"{merged}/{st}.npy")
    if a.shape != b.shape or not np.allclose(a, b, rtol=1e-6, atol=0, equal_nan=True):
        sys.exit(f"{st}: merged differs from one run by {np.nanmax(np.abs(a - b))}")
PY
echo "test-slurm: ok: 3 Slurm shards of a stack's dates merged give one run's statistics"
