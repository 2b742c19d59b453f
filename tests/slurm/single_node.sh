#!/bin/bash
# The cluster recipes of the docs on a real Slurm: brings up a single-node Slurm by hand (munged,
# slurmctld and slurmd started here, no systemd; all state in a temporary folder, the daemons
# stopped at the end) and runs, as the docs write them,
#   1. the Slurm job array of README.md / docs/tournaments.md ("Shards on a cluster"), submitted
#      from another folder, its merge as an `afterok` job, checked against an unsharded run;
#   2. the recovery of docs/tournaments.md: one shard cancelled before it starts, one killed
#      midway, `arena merge --status`, `sbatch --array=K` and the merge;
#   3. the SPRT over a cluster of docs/tournaments.md: its driver job, checked against `arena
#      sprt` on one machine.
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
sleep 2
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

echo
echo "all done: the recipe and its recovery ran on Slurm $(sinfo --version | cut -d' ' -f2)"
