#!/usr/bin/env bash
# The HTTP console's cost to the daemon: CPU of the fieldlocd process alone (utime + stime from
# /proc/PID/stat) on the sim board over SECONDS, in two configurations run alternately ROUNDS times:
#   base    one gpsd watcher (gpspipe -w) keeps the receiver tracking, nothing on the console;
#   console the same watcher, plus PAGES page streams (/events, curl -N) and a /metrics scrape every 15 s.
# The page streams add no demand beyond the watcher's (both ask for the best accuracy), so the
# difference is what serving the console costs. Prints one line per run and the medians.
#
#   Benchmarks/console/console-cost.sh [SECONDS=60] [ROUNDS=3] [PAGES=10]
# Needs: the built fieldlocd (swift build -c release --product fieldlocd), gpspipe, curl.
set -euo pipefail
seconds=${1:-60}; rounds=${2:-3}; pages=${3:-10}
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${FIELDLOCD_BINARY:-$here/.build/release/fieldlocd}
[ -x "$bin" ] || { echo "console-cost: $bin is not built (swift build -c release --product fieldlocd)"; exit 1; }
command -v gpspipe >/dev/null || { echo "console-cost: gpspipe is missing (apt install gpsd-clients)"; exit 1; }
tick=$(getconf CLK_TCK)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }

run() { # $1 = base | console; prints CPU ms per second of the daemon
    local mode=$1 gpsd_port=$((30000 + RANDOM % 2000)) http_port=$((32000 + RANDOM % 2000))
    "$bin" --board sim --port "$gpsd_port" --http "127.0.0.1:$http_port" --client-socket none \
        --policy "$work/none.policy" --state-dir "$work" 2> "$work/daemon.err" &
    local pid=$!
    for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$http_port") 2>/dev/null && break; sleep 0.1; done
    gpspipe -w "127.0.0.1:$gpsd_port" > /dev/null 2>&1 &
    local watcher=$! clients=()
    if [ "$mode" = console ]; then
        for _ in $(seq "$pages"); do curl -sN "http://127.0.0.1:$http_port/events" > /dev/null & clients+=($!); done
        ( while true; do curl -s "http://127.0.0.1:$http_port/metrics" > /dev/null; sleep 15; done ) & clients+=($!)
    fi
    sleep 10  # first fix, page streams connected
    local before after
    before=$(cpu "$pid")
    sleep "$seconds"
    after=$(cpu "$pid")
    kill "${clients[@]}" "$watcher" 2>/dev/null || true
    kill "$pid"; wait "$pid" 2>/dev/null || true
    awk -v t="$((after - before))" -v hz="$tick" -v s="$seconds" 'BEGIN { printf "%.3f\n", t * 1000 / hz / s }'
}

base=(); console=()
for r in $(seq "$rounds"); do
    b=$(run base); c=$(run console)
    echo "round $r: base $b ms/s, console ($pages pages + /metrics every 15 s) $c ms/s"
    base+=("$b"); console+=("$c")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
mb=$(median "${base[@]}"); mc=$(median "${console[@]}")
awk -v b="$mb" -v c="$mc" 'BEGIN { printf "median: base %.3f ms/s, console %.3f ms/s; the console costs %.3f ms/s = %.2f %% of one core\n", b, c, c - b, (c - b) / 10 }'
