#!/usr/bin/env bash
# Resident memory of a running fieldlocd under client load (RELIABILITY.md, "Daemon memory").
#
#   .ci/daemon-rss.sh FIELDLOCD [PORT] [RELEASE_SECONDS]
#
# Starts FIELDLOCD on the sim board at --speed 20 with --release-startup-code RELEASE_SECONDS
# (default 10; 0 keeps the start-up pages), then: 5 `gpspipe -w` watchers for 40 s, 200
# connect-WATCH-disconnect cycles, 12 s, 200 more cycles, 8 s. Prints VmRSS, VmHWM and the kinds of
# resident pages (smaps_rollup), and the daemon's own release line. Needs gpspipe (gpsd-clients).
# Run `sync` after building: the page cache of a freshly linked binary is dirty and shows as
# Private_Dirty until it is written back.
set -euo pipefail
bin=${1:?usage: daemon-rss.sh FIELDLOCD [PORT] [RELEASE_SECONDS]}
port=${2:-29481}
release=${3:-10}
command -v gpspipe > /dev/null || { echo "daemon-rss: needs gpspipe (apt install gpsd-clients)"; exit 2; }
log=$(mktemp)
pid=
trap 'kill $pid 2> /dev/null || true; rm -f "$log"' EXIT
"$bin" --port "$port" --speed 20 --client-socket none --release-startup-code "$release" > "$log" 2>&1 &
pid=$!
for _ in $(seq 50); do
    (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null && break
    sleep 0.1
done
cycles() {
    for _ in $(seq "$1"); do
        timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port; echo '?WATCH={\"enable\":true,\"json\":true}' >&3; head -c 100 <&3 > /dev/null" 2> /dev/null || true
    done
}
watchers=()
for _ in 1 2 3 4 5; do timeout 40 gpspipe -w "localhost:$port" > /dev/null 2>&1 & watchers+=($!); done
cycles 200
sleep 12
cycles 200
sleep 8
kb() { awk -v k="$1" '$1 == k":" { print $2 }' "$2"; }
echo "release=$release VmRSS $(kb VmRSS /proc/$pid/status) kB, VmHWM $(kb VmHWM /proc/$pid/status) kB;" \
     "shared clean $(kb Shared_Clean /proc/$pid/smaps_rollup) kB, private clean $(kb Private_Clean /proc/$pid/smaps_rollup) kB," \
     "private dirty $(kb Private_Dirty /proc/$pid/smaps_rollup) kB, anonymous $(kb Anonymous /proc/$pid/smaps_rollup) kB"
grep -h 'start-up code pages' "$log" || true
kill "${watchers[@]}" 2> /dev/null || true
