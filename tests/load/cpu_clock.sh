#!/bin/sh
# The CPU clock under load (issue "results that do not depend on machine load"): 200 Skynet
# matches of two Python bots (bots/skynet_virus.py against bots/skynet_agent.py) at -j 8 while
# two CPU-burning processes run, once on the cpu clock and once on the wall clock, against a
# reference run at -j 1 without the burners. Reports the false timeouts of each (every bot here
# answers well within its limits on an idle machine, so every timeout is false) and whether
# matches.csv is identical to the reference apart from the timing columns. Not run in CI: it
# takes minutes and loads the machine on purpose.
#
# Usage: tests/load/cpu_clock.sh [ARENA_BINARY]   (default: target/release/arena)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
arena=${1:-$root/target/release/arena}
[ -x "$arena" ] || { echo "build it first: cargo build --release" >&2; exit 2; }
command -v python3 >/dev/null || { echo "python3 is not on PATH" >&2; exit 2; }
work=$(mktemp -d)
trap 'kill $burners 2>/dev/null || true; rm -rf "$work"' EXIT INT TERM
burners=

write_arena() { # name clock
    cat >"$work/$1.toml" <<TOML
name = "$1"
game = "skynet"
format = "round-robin"
games_per_pairing = 200
seed = 11
replays = "none"
[limits]
clock = "$2"
[maps]
files = ["$root/arenas/maps/skynet/ep2_01.txt"]
[[bots]]
name = "py-virus"
spec = "cmd:python3 $root/bots/skynet_virus.py"
roles = ["virus"]
[[bots]]
name = "py-agent"
spec = "cmd:python3 $root/bots/skynet_agent.py"
roles = ["agent"]
TOML
}

run() { # name clock jobs
    write_arena "$1" "$2"
    start=$(date +%s)
    "$arena" run "$work/$1.toml" --out "$work/$1" -j "$3" -q >/dev/null 2>"$work/$1.err" || true
    end=$(date +%s)
    timeouts=$(grep -c ',timeout,' "$work/$1/matches.csv" || true)
    matches=$(($(wc -l <"$work/$1/matches.csv") - 1))
    echo "$1: clock $2, -j $3: $timeouts timeouts in $matches matches ($((end - start)) s)"
}

# The reproducible part of a row: every column before duration_ms, sorted by id.
reproducible() {
    n=$(head -1 "$1" | tr ',' '\n' | grep -n '^duration_ms$' | cut -d: -f1)
    tail -n +2 "$1" | cut -d, -f1-$((n - 1)) | sort -t, -k1,1n
}

run reference cpu 1
for _ in 1 2; do sh -c 'while :; do :; done' & burners="$burners $!"; done
run loaded-cpu cpu 8
run loaded-wall wall 8
kill $burners; burners=
for name in loaded-cpu loaded-wall; do
    if [ "$(reproducible "$work/reference/matches.csv")" = "$(reproducible "$work/$name/matches.csv")" ]; then
        echo "$name: matches.csv identical to the reference apart from timing columns"
    else
        echo "$name: matches.csv DIFFERS from the reference"
    fi
done
