#!/bin/bash
# The cluster recipes of the docs on a real Slurm: brings up a single-node Slurm by hand (munged,
# slurmctld and slurmd started here, no systemd; all state in a temporary folder, the daemons
# stopped at the end) and runs, as the docs write them,
#   1. the Slurm job array of README.md / docs/tournaments.md ("Shards on a cluster"), submitted
#      from another folder, its merge as an `afterok` job, checked against an unsharded run;
#   2. the recovery of docs/tournaments.md: one shard cancelled before it starts, one killed
#      midway, `arena merge --status`, `sbatch --array=K` and the merge;
#   3. the SPRT over a cluster of docs/tournaments.md: its driver job, one task of its first batch
#      failing, checked against `arena sprt` on one machine.
# It prints what it ran and what came back (the transcript in docs/tournaments.md is its output).
# Not run in CI: it needs root, installs packages and starts daemons.
#
# Usage: tests/slurm/single_node.sh [ARENA_BINARY]   (default: target/release/arena)
# Needs the Debian packages slurm-wlm and munge (installed with apt-get when missing).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
arena=$(realpath "${1:-$root/target/release/arena}")
[ -x "$arena" ] || { echo "build it first: cargo build --release" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "run as root: it starts munged, slurmctld and slurmd" >&2; exit 2; }
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y slurm-wlm munge >/dev/null
fi

work=$(mktemp -d /tmp/arena-slurm.XXXXXX)
chmod 755 "$work"
daemons=()
stop_daemons() {
    for pid in "${daemons[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${daemons[@]}"; do
        while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
    done
}
trap 'stop_daemons; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT INT TERM

say() { printf '\n## %s\n' "$*"; }
# Prints a command as a user types it, then runs it in this shell (its variables stay set).
run() { printf '$ %s\n' "$*"; eval "$*"; }
fail() { echo "FAILED: $*" >&2; exit 1; }

# --- a single-node Slurm ----------------------------------------------------------------------
host=$(hostname -s)
cpus=$(nproc)
mkdir -p "$work/munge" "$work/slurm/ctld" "$work/slurm/d" "$work/log"
chown munge:munge "$work/munge"
chmod 755 "$work/munge"
# A key of its own and a socket of its own: a munged already running on the machine is left alone.
runuser -u munge -- mungekey --create --keyfile="$work/munge/munge.key"
runuser -u munge -- munged --socket="$work/munge/socket" --key-file="$work/munge/munge.key" \
    --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" \
    --seed-file="$work/munge/munged.seed"
for _ in $(seq 50); do [ -s "$work/munge/munged.pid" ] && break; sleep 0.1; done
daemons+=("$(cat "$work/munge/munged.pid")")

export SLURM_CONF=$work/slurm/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=arena-test
SlurmctldHost=$host
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/socket
CredType=cred/munge
StateSaveLocation=$work/slurm/ctld
SlurmdSpoolDir=$work/slurm/d
SlurmctldPidFile=$work/slurm/slurmctld.pid
SlurmdPidFile=$work/slurm/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=3600
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$host CPUs=$cpus RealMemory=2000 State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D >"$work/log/slurmctld.out" 2>&1 &
daemons+=("$!")
slurmd -D >"$work/log/slurmd.out" 2>&1 &
daemons+=("$!")
for _ in $(seq 100); do
    [ "$(sinfo -h -o %t 2>/dev/null)" = idle ] && break
    sleep 0.2
done
[ "$(sinfo -h -o %t)" = idle ] || { tail "$work"/log/*; fail "the node did not come up"; }

say "a single-node Slurm"
run sinfo --version
run sinfo -N -o "'%N %c %t'"

# `arena` on the PATH that sbatch passes on, as the recipe expects.
mkdir -p "$work/bin"
ln -s "$arena" "$work/bin/arena"
export PATH=$work/bin:$PATH

# Every job is waited for, then its final state read (MinJobAge keeps finished jobs listed).
wait_for() { # job ids
    for _ in $(seq 1800); do
        [ -z "$(squeue -h -j "$(IFS=,; echo "$*")" 2>/dev/null)" ] && return 0
        sleep 1
    done
    fail "jobs $* still queued after 30 minutes"
}
states() { # job id: its tasks by state, as `STATE: task ids`
    scontrol -o show job "$1" | awk '{
        task = ""; state = "";
        for (i = 1; i <= NF; i++) {
            if ($i ~ /^ArrayTaskId=/) task = substr($i, 13);
            if ($i ~ /^JobState=/) state = substr($i, 10);
        }
        print state, (task == "" ? "-" : task) }' | sort -k1,1 -k2,2n |
        awk '$1 != last { if (last != "") print line; last = $1; line = "  " $1 ":" } { line = line " " $2 }
             END { print line }'
}

# --- the docs' blocks -------------------------------------------------------------------------
# The fenced blocks between `<!-- recipe: NAME -->` and `<!-- /recipe -->` of a doc, each into
# $work/recipe/NAME.1, NAME.2, ...
extract() { # doc name
    mkdir -p "$work/recipe"
    awk -v name="$2" -v out="$work/recipe/$2" '
        $0 == "<!-- recipe: " name " -->" { inside = 1; next }
        $0 == "<!-- /recipe -->" { inside = 0 }
        inside && /^```/ { if (fence) { fence = 0 } else { fence = 1; n++ }; next }
        inside && fence { print > (out "." n) }' "$root/$1"
    [ -s "$work/recipe/$2.1" ] || fail "$1 has no recipe $2"
}
project=$work/project
# The recipe as written, but for the project's path and the CPUs per task (this node has $cpus).
fit() { # file
    sed -i -e "s|/shared/arena|$project|g" -e "s|--cpus-per-task=4 |--cpus-per-task=1 |" "$1"
}
extract README.md slurm
extract docs/tournaments.md slurm-recovery

mkdir -p "$project" "$work/elsewhere"
cp -R "$root/arenas" "$root/bots" "$project/"
cp "$work/recipe/slurm.1" "$project/league.sbatch"
fit "$project/league.sbatch"
fit "$work/recipe/slurm.2"
fit "$work/recipe/slurm-recovery.1"
fit "$work/recipe/slurm-recovery.2"

say "1. the recipe: README.md, 'Shards on a cluster'"
echo "league.sbatch, as written but for --chdir=$project and --cpus-per-task=1:"
diff <(sed -e "s|/shared/arena|$project|g" "$work/recipe/slurm.1") "$project/league.sbatch" || true
cd "$work/elsewhere"
echo "submitted from $PWD:"
while IFS= read -r line; do printf '$ %s\n' "$line"; done <"$work/recipe/slurm.2"
# shellcheck disable=SC1091
source "$work/recipe/slurm.2"
echo "array job $job, merge job $merge"
wait_for "$job" "$merge"
echo "the array's tasks:"
states "$job"
echo "the merge:"
states "$merge"
[ "$(states "$job")" = "  COMPLETED: $(seq -s ' ' 16)" ] || fail "not every task completed"
[ "$(states "$merge")" = "  COMPLETED: -" ] || fail "the merge did not complete"
run tail -n 4 "$project/slurm-$merge.out"
cd "$project"
run arena run arenas/league.toml --quiet --out "$work/whole" '>' /dev/null
run cmp results/league/summary.csv "$work/whole/summary.csv"
run cmp results/league/pairwise.csv "$work/whole/pairwise.csv"
run arena diff results/league "$work/whole" '|' head -n 3
echo "merged by Slurm = one unsharded run"

say "2. recovery: docs/tournaments.md, 'A shard failed or was cancelled'"
# A league ten times longer, so that a shard runs long enough to be stopped midway.
rm -rf results
sed -i 's/^games_per_pairing = 400$/games_per_pairing = 4000/' arenas/league.toml
grep -q '^games_per_pairing = 4000$' arenas/league.toml || fail "league.toml changed"
echo "arenas/league.toml with games_per_pairing = 4000 (40,000 matches)"
cd "$work/elsewhere"
# shellcheck disable=SC1091
source "$work/recipe/slurm.2" >/dev/null
echo "submitted again: array job $job, merge job $merge"
run scancel "${job}_5"
# Shard 9 stopped midway, as its time limit or a dying node would.
for _ in $(seq 600); do
    csv=$project/results/league/shard-9-of-16/matches.csv
    rows=0
    [ -f "$csv" ] && rows=$(wc -l <"$csv")
    [ "$rows" -gt 100 ] && break
    sleep 0.1
done
run scancel "${job}_9"
wait_for "$job"
echo "the array's tasks:"
states "$job"
echo "task 5: $(scontrol -o show job "${job}_5" | grep -o 'JobState=[A-Z]*' || echo gone)"
# The scheduler marks the merge's dependency as never satisfied on its next pass.
for _ in $(seq 120); do
    [ "$(squeue -h -j "$merge" -o %r)" = DependencyNeverSatisfied ] && break
    sleep 1
done
run squeue -j "$merge" -o "'%i %j %T %r'"
cd "$project"
while IFS= read -r line; do printf '$ %s\n' "$line"; done <"$work/recipe/slurm-recovery.1"
set +e
# shellcheck disable=SC1091
source "$work/recipe/slurm-recovery.1"
status=$?
set -e
echo "(exit code $status)"
[ "$status" = 1 ] || fail "--status said all is well"
cd "$work/elsewhere"
while IFS= read -r line; do printf '$ %s\n' "$line"; done <"$work/recipe/slurm-recovery.2"
# shellcheck disable=SC1091
source "$work/recipe/slurm-recovery.2"
wait_for "$job" "$merge"
echo "the rerun tasks:"
states "$job"
echo "the merge:"
states "$merge"
[ "$(states "$merge")" = "  COMPLETED: -" ] || fail "the merge did not complete"
cd "$project"
run grep -h "'already played'" "'slurm-${job}_5.out'" "'slurm-${job}_9.out'" '||' true
run tail -n 2 "slurm-$merge.out"
run arena merge --status "results/league/shard-*-of-16" '|' tail -n 2
run arena run arenas/league.toml --quiet --out "$work/whole-long" '>' /dev/null
run cmp results/league/summary.csv "$work/whole-long/summary.csv"
echo "recovered = one unsharded run"


say "3. the SPRT over a cluster: docs/tournaments.md, 'Over a cluster'"
# Every job of these names (comma-separated), one line each: id, name, state, exit code.
jobs_named() {
    scontrol -o show job | awk -v names=",$1," '{
        id = ""; array = ""; task = ""; name = ""; state = ""; code = "";
        for (i = 1; i <= NF; i++) {
            at = index($i, "="); key = substr($i, 1, at - 1); value = substr($i, at + 1);
            if (key == "JobId") id = value;
            if (key == "ArrayJobId") array = value;
            if (key == "ArrayTaskId") task = value;
            if (key == "JobName") name = value;
            if (key == "JobState") state = value;
            if (key == "ExitCode") code = value;
        }
        if (index(names, "," name ","))
            printf "  %-8s %-16s %-10s exit %s\n", (task == "" ? id : array "_" task), name, state, code
    }' | sort -t_ -k1,1n -k2,2n
}
wait_for_names() { # job names: until no job of these names is queued or running
    for _ in $(seq 1800); do
        [ -z "$(squeue -h --name="$1" 2>/dev/null)" ] && return 0
        sleep 1
    done
    fail "jobs named $1 still queued after 30 minutes"
}
extract docs/tournaments.md slurm-sprt
cd "$project"
rm -rf results
cp "$work/recipe/slurm-sprt.1" sprt.sbatch
sed -i -e "s|/shared/arena|$project|g" -e 's/^cpus=4 /cpus=1 /' -e 's/^per_task=100 /per_task=25  /' \
    -e 's/^tasks=8 /tasks=4 /' sprt.sbatch
echo "sprt.sbatch, as written but for the project's path, cpus=1 and batches of 4 tasks of 25 pairs:"
diff <(sed -e "s|/shared/arena|$project|g" "$work/recipe/slurm-sprt.1") sprt.sbatch || true
# One task of the first batch fails: the folder of pairs 25..50 is held by another process (as if
# an earlier run of it still went on), so its task exits 4 ("in use by another run"). Released once
# that task has failed; the driver after the batch finds pair 25 missing and plays its range again.
mkdir -p results/sprt-skynet-virus/sprt-pairs/25-50
exec 9<results/sprt-skynet-virus/sprt-pairs/25-50
flock -n 9 || fail "could not hold the folder of pairs 25..50"
echo "results/sprt-skynet-virus/sprt-pairs/25-50: held by another process until its task fails"
submit=$(sed -n 1p "$work/recipe/slurm-sprt.2" | sed "s|/shared/arena|$project|g")
cd "$work/elsewhere"
run "$submit"
for _ in $(seq 1200); do
    jobs_named arena-sprt-pairs | grep -q ' FAILED ' && break
    sleep 0.1
done
flock -u 9
exec 9<&-
jobs_named arena-sprt-pairs | grep -q ' FAILED ' || fail "the task of pairs 25..50 did not fail"
wait_for_names arena-sprt,arena-sprt-pairs
echo "its jobs:"
jobs_named arena-sprt,arena-sprt-pairs
cd "$project"
failed=$(jobs_named arena-sprt-pairs | awk '$3 == "FAILED" {print $1; exit}')
run cat "slurm-arena-sprt-pairs-$failed.out"
second=$(jobs_named arena-sprt | sed -n 2p | awk '{print $1}')
run cat "slurm-arena-sprt-$second.out"
last=$(jobs_named arena-sprt | tail -n 1 | awk '{print $1}')
run cat "slurm-arena-sprt-$last.out"
[ "$(jobs_named arena-sprt | tail -n 1 | awk '{print $3, $5}')" = "COMPLETED 0:0" ] ||
    fail "the last driver did not accept H1"
set +e
run arena sprt arenas/sprt-skynet-virus.toml -q --out "$work/alone" '|' head -n 2
set -e
run diff "<(grep -v '\"results\"' results/sprt-skynet-virus/sprt/sprt.json)" \
    "<(grep -v '\"results\"' $work/alone/sprt.json)"
echo "decided over Slurm = arena sprt on one machine: the same sprt.json but for its folder"

echo
echo "all done: the recipe, its recovery and the SPRT driver ran on Slurm $(sinfo --version | cut -d' ' -f2)"
