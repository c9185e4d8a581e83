#!/usr/bin/env bash
# fieldlocd against gpsd 3.22, side by side: the same NMEA bytes at the same epoch pace through a
# pseudo-terminal (feed.py), each daemon reading it as a receiver's UART (gpsd -N -n -b DEVICE;
# fieldlocd on a board file whose receiver is that device, generic NMEA, passive), with 0, 1 and
# 10 watchers (gpspipe -w) at 10 and 50 epochs a second. For each run, over SECONDS after a 6 s
# warm-up, of the daemon process alone:
#   cpu    CPU per epoch: the process's CPU clock (clock_getcpuclockid: every thread, those that
#          ended too; nanoseconds) per epoch the feeder wrote; ticks = utime + stime (/proc/PID/stat,
#          10 ms ticks) as a check
#   cs     context switches per epoch (voluntary + nonvoluntary, /proc/PID/task/*/status)
#   rss    VmRSS and RssAnon at the end (/proc/PID/status)
# Daemons alternate within each round; the medians of ROUNDS rounds and the ratios are printed
# as a Markdown table.
#
#   Benchmarks/daemon-vs-gpsd/daemon-vs-gpsd.sh [SECONDS=20] [ROUNDS=3] [CONFIGS="0:10 1:10 10:10 0:50 1:50 10:50"]
#   Benchmarks/daemon-vs-gpsd/daemon-vs-gpsd.sh idle [ROUNDS=3]
# The idle mode: no client and no bytes; CPU a second and syscalls from 25 to 45 s after the start
# (fieldlocd --board sim, fieldlocd on the silent pty, gpsd -n on the silent pty).
# Needs: the built fieldlocd (Sources/fieldlocd/build-release.sh fieldlocd), gpsd and gpspipe
# (apt install gpsd gpsd-clients; measured with 3.22), python3, strace for the idle syscalls, and
# an NMEA capture: LOG (default ../shared/corpus/gpsd/ublox-neo-m9n-nmea.log: a u-blox NEO-M9N,
# four GNSS, 42 satellites in view, 23 sentences an epoch).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bench=$here/Benchmarks/daemon-vs-gpsd
bin=${FIELDLOCD_BINARY:-$here/.build/release/fieldlocd}
gpsd=${GPSD_BINARY:-$(command -v gpsd || echo /usr/sbin/gpsd)}
log=${LOG:-$here/../shared/corpus/gpsd/ublox-neo-m9n-nmea.log}
[ -x "$bin" ] || { echo "daemon-vs-gpsd: $bin is not built (Sources/fieldlocd/build-release.sh fieldlocd)"; exit 1; }
[ -x "$gpsd" ] || { echo "daemon-vs-gpsd: gpsd is missing (apt install gpsd)"; exit 1; }
command -v gpspipe >/dev/null || { echo "daemon-vs-gpsd: gpspipe is missing (apt install gpsd-clients)"; exit 1; }
[ -r "$log" ] || { echo "daemon-vs-gpsd: no NMEA capture at $log (set LOG=FILE)"; exit 1; }
tick=$(getconf CLK_TCK)
work=$(mktemp -d)
# The feeder's files live apart from the policy file's folder, which fieldlocd watches with inotify.
mkdir -p "$work/feed" "$work/policy" "$work/state"
trap 'kill $(jobs -p) $(cat "$work/daemon.pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$work"' EXIT

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# The process's CPU clock (clock_getcpuclockid: every thread, those that ended too), nanoseconds.
runtime() { python3 -c 'import sys, time; p = int(sys.argv[1]); print(time.clock_gettime_ns(((~p) << 3) | 2))' "$1"; }
switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/_ctxt_switches/ {s += $2} END {printf "%.0f\n", s}'; }
memory() { awk '/^VmRSS/ {r = $2} /^RssAnon/ {a = $2} END {print r, a}' "/proc/$1/status"; }
wait_port() { for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }

board() { # a board whose receiver is the pty named in $work/feed/gps0
    cat > "$work/pty.toml" <<TOML
name = "pty"
title = "A receiver on a pseudo-terminal (benchmark)"
simulated = false

[receiver]
uart = "$(cat "$work/feed/gps0")"
baud = 115200
family = "generic-nmea"
receiver_config = "passive"
TOML
}

start_daemon() { # $1 = gpsd | fieldlocd | fieldlocd-sim, $2 = port; prints the PID
    case $1 in
        gpsd) "$gpsd" -N -n -b -F "$work/gpsd.sock" -P "$work/gpsd.pid" -S "$2" "$(cat "$work/feed/gps0")" > "$work/daemon.err" 2>&1 & ;;
        # The start-up page release (20 s by default) happens in the warm-up, not in the measurement.
        fieldlocd) "$bin" --board "$work/pty.toml" --port "$2" --client-socket none --policy "$work/policy/none.policy" \
                       --state-dir "$work/state" --release-startup-code 3 > "$work/daemon.err" 2>&1 & ;;
        fieldlocd-sim) "$bin" --board sim --port "$2" --client-socket none --policy "$work/policy/none.policy" \
                       --state-dir "$work/state" > "$work/daemon.err" 2>&1 & ;;
    esac
    echo $! | tee "$work/daemon.pid"
}

run() { # $1 = daemon, $2 = watchers, $3 = epochs a second; prints "cpu_us ticks_us cs rss anon epochs"
    local daemon=$1 watchers=$2 rate=$3 port=$((30000 + RANDOM % 2000))
    python3 "$bench/feed.py" "$log" "$rate" "$work/feed/gps0" "$work/feed/sent" & local feeder=$!
    for _ in $(seq 50); do [ -e "$work/feed/gps0" ] && break; sleep 0.1; done
    board
    local pid; pid=$(start_daemon "$daemon" "$port")
    wait_port "$port" || { echo "daemon-vs-gpsd: $daemon did not listen" >&2; cat "$work/daemon.err" >&2; exit 1; }
    local clients=()
    for _ in $(seq "$watchers"); do gpspipe -w "127.0.0.1:$port" > /dev/null 2>&1 & clients+=($!); done
    sleep 6
    local t0 r0 c0 e0 t1 r1 c1 e1 mem
    t0=$(ticks "$pid"); r0=$(runtime "$pid"); c0=$(switches "$pid"); e0=$(cat "$work/feed/sent")
    sleep "$seconds"
    t1=$(ticks "$pid"); r1=$(runtime "$pid"); c1=$(switches "$pid"); e1=$(cat "$work/feed/sent")
    mem=$(memory "$pid")
    [ ${#clients[@]} -gt 0 ] && kill "${clients[@]}" 2>/dev/null || true
    kill "$pid"; wait "$pid" 2>/dev/null || true
    kill "$feeder"; wait "$feeder" 2>/dev/null || true
    rm -f "$work/feed/gps0"
    awk -v r="$((r1 - r0))" -v t="$((t1 - t0))" -v hz="$tick" -v c="$((c1 - c0))" -v e="$((e1 - e0))" -v m="$mem" \
        'BEGIN { split(m, mm, " "); printf "%.1f %.1f %.2f %d %d %d\n", r / 1000 / e, t * 1e6 / hz / e, c / e, mm[1], mm[2], e }'
}

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
column() { local n=$1; shift; for line in "$@"; do echo "$line" | awk -v n="$n" '{print $n}'; done; }

if [ "${1:-}" = idle ]; then
    rounds=${2:-3}
    idle() { # $1 = daemon; "ms_per_s syscalls_per_s rss anon" from 25 to 45 s after the start
        local daemon=$1 port=$((30000 + RANDOM % 2000)) feeder=
        if [ "$daemon" != fieldlocd-sim ]; then
            python3 "$bench/feed.py" "$log" 0 "$work/feed/gps0" "$work/feed/sent" & feeder=$!
            for _ in $(seq 50); do [ -e "$work/feed/gps0" ] && break; sleep 0.1; done
            board
        fi
        local pid; pid=$(start_daemon "$daemon" "$port")
        sleep 25
        local r0 r1 calls=nan mem
        r0=$(runtime "$pid")
        if command -v strace >/dev/null; then
            timeout 20 strace -f -c -p "$pid" -o "$work/strace.txt" 2>/dev/null || true
            calls=$(awk '$NF == "total" {print $(NF-2)}' "$work/strace.txt")
        else
            sleep 20
        fi
        r1=$(runtime "$pid"); mem=$(memory "$pid")
        kill "$pid"; wait "$pid" 2>/dev/null || true
        [ -n "$feeder" ] && { kill "$feeder"; wait "$feeder" 2>/dev/null || true; rm -f "$work/feed/gps0"; }
        awk -v r="$((r1 - r0))" -v c="$calls" -v m="$mem" 'BEGIN { split(m, mm, " "); printf "%.3f %.1f %d %d\n", r / 1e6 / 20, c / 20, mm[1], mm[2] }'
    }
    declare -A results
    for r in $(seq "$rounds"); do
        for daemon in fieldlocd-sim fieldlocd gpsd; do
            line=$(idle "$daemon"); results[$daemon]+="$line;"
            echo "round $r $daemon: $line (ms CPU/s, syscalls/s under strace, VmRSS KiB, RssAnon KiB)"
        done
    done
    echo
    echo "| idle, no client, 25-45 s after the start | CPU ms/s | syscalls/s | VmRSS KiB | RssAnon KiB |"
    echo "| --- | ---: | ---: | ---: | ---: |"
    for daemon in fieldlocd-sim fieldlocd gpsd; do
        IFS=';' read -r -a lines <<< "${results[$daemon]}"
        echo "| $daemon | $(median $(column 1 "${lines[@]}")) | $(median $(column 2 "${lines[@]}")) | $(median $(column 3 "${lines[@]}")) | $(median $(column 4 "${lines[@]}")) |"
    done
    exit 0
fi

seconds=${1:-20}; rounds=${2:-3}; configs=${3:-"0:10 1:10 10:10 0:50 1:50 10:50"}
declare -A results
for r in $(seq "$rounds"); do
    for config in $configs; do
        watchers=${config%%:*}; rate=${config##*:}
        # Alternate which daemon goes first from round to round.
        order="gpsd fieldlocd"; [ $((r % 2)) -eq 0 ] && order="fieldlocd gpsd"
        for daemon in $order; do
            line=$(run "$daemon" "$watchers" "$rate"); results[$daemon,$config]+="$line;"
            echo "round $r, $watchers watchers, $rate/s, $daemon: $line (cpu us/epoch, ticks us/epoch, cs/epoch, VmRSS KiB, RssAnon KiB, epochs)"
        done
    done
done
echo
echo "| watchers | epochs/s | fieldlocd us/epoch | gpsd us/epoch | ratio | fieldlocd cs/epoch | gpsd cs/epoch | fieldlocd RSS / anon KiB | gpsd RSS / anon KiB |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for config in $configs; do
    IFS=';' read -r -a f <<< "${results[fieldlocd,$config]}"
    IFS=';' read -r -a g <<< "${results[gpsd,$config]}"
    fc=$(median $(column 1 "${f[@]}")); gc=$(median $(column 1 "${g[@]}"))
    echo "| ${config%%:*} | ${config##*:} | $fc | $gc | $(awk -v a="$fc" -v b="$gc" 'BEGIN { printf "%.2f", a / b }') |" \
         "$(median $(column 3 "${f[@]}")) | $(median $(column 3 "${g[@]}")) |" \
         "$(median $(column 4 "${f[@]}")) / $(median $(column 5 "${f[@]}")) | $(median $(column 4 "${g[@]}")) / $(median $(column 5 "${g[@]}")) |"
done
