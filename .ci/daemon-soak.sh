#!/usr/bin/env bash
# A simulated day of fieldlocd with gpsd clients coming and going (RELIABILITY.md, "Daemon memory").
#
#   .ci/daemon-soak.sh FIELDLOCD [SIMULATED_HOURS] [SPEED] [PORT]
#
# Runs FIELDLOCD on the sim board at --speed SPEED (default 240: 24 simulated hours in 6 minutes)
# for SIMULATED_HOURS (default 24). Throughout: 3 `gpspipe -w` watchers that stay, 2 that are
# replaced every 20 s, and 10 connect-WATCH-disconnect cycles a second. Every 30 s it prints the
# simulated hour, VmRSS and the CPU time used so far; at the end, the growth of VmRSS after the
# first simulated hour and the CPU seconds per simulated hour. Needs gpspipe (gpsd-clients).
set -euo pipefail
bin=${1:?usage: daemon-soak.sh FIELDLOCD [SIMULATED_HOURS] [SPEED] [PORT]}
hours=${2:-24}
speed=${3:-240}
port=${4:-29482}
command -v gpspipe > /dev/null || { echo "daemon-soak: needs gpspipe (apt install gpsd-clients)"; exit 2; }
log=$(mktemp)
pid=
pids=()
cleanup() { kill $pid "${pids[@]}" 2> /dev/null || true; rm -f "$log"; }
trap cleanup EXIT
"$bin" --port "$port" --speed "$speed" --client-socket none > "$log" 2>&1 &
pid=$!
for _ in $(seq 50); do
    (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null && break
    sleep 0.1
done
seconds=$(awk -v h="$hours" -v s="$speed" 'BEGIN { printf "%d", h * 3600 / s }')
for _ in 1 2 3; do timeout $((seconds + 5)) gpspipe -w "localhost:$port" > /dev/null 2>&1 & pids+=($!); done
rss() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$pid/status"; }
cpu() { awk '{ printf "%.1f", ($14 + $15) / '"$(getconf CLK_TCK)"' }' "/proc/$pid/stat"; }
start=$SECONDS
first_hour_rss=
next_sample=0
next_visitors=0
while (( SECONDS - start < seconds )); do
    kill -0 "$pid" 2> /dev/null || { echo "daemon-soak: fieldlocd exited"; tail -5 "$log"; exit 1; }
    elapsed=$((SECONDS - start))
    if (( elapsed >= next_visitors )); then
        timeout 20 gpspipe -w "localhost:$port" > /dev/null 2>&1 & pids+=($!)
        timeout 20 gpspipe -r "localhost:$port" > /dev/null 2>&1 & pids+=($!)
        next_visitors=$((elapsed + 20))
    fi
    for _ in $(seq 10); do
        timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port; echo '?WATCH={\"enable\":true,\"json\":true}' >&3; head -c 100 <&3 > /dev/null" 2> /dev/null || true
    done
    if (( elapsed >= next_sample )); then
        hour=$(awk -v e="$elapsed" -v s="$speed" 'BEGIN { printf "%.1f", e * s / 3600 }')
        echo "simulated hour $hour: VmRSS $(rss) kB, CPU $(cpu) s"
        if [ -z "$first_hour_rss" ] && awk -v h="$hour" 'BEGIN { exit !(h >= 1) }'; then first_hour_rss=$(rss); fi
        next_sample=$((elapsed + 30))
    fi
    sleep 0.5
done
final=$(rss)
echo "end: VmRSS $final kB after $hours simulated hours; after hour 1 it was ${first_hour_rss:-?} kB (growth $(( final - ${first_hour_rss:-final} )) kB); CPU $(cpu) s, $(awk -v c="$(cpu)" -v h="$hours" 'BEGIN { printf "%.2f", c / h }') s per simulated hour"
grep -h 'start-up code pages' "$log" || true
