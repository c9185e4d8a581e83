#!/usr/bin/env bash
# Crash and full-disk trials for the files FieldLocation persists, through the real CLI.
#
#   .ci/persistence-trials.sh [N] [KIND...]        N trials per kind (default 200)
#
# KIND (default: calibration regions monitor):
#   calibration  `fieldloc calibrate --samples Si.csv --sensor trial --save --force --json`, each write a
#                different calibration; the stored file is sim.trial.calibration.json
#   regions      `fieldloc regions add r<i> LAT LON RADIUS --client trial`, each write one more region;
#                the stored file is regions-trial.json
#   monitor      events queued while the client is away, across kills of both sides (see "Monitor
#                trials" below): trials of 200 events each, N of them but at most 8 (about 11 s
#                each, so CI stays under 2 minutes; $MONITOR_TRIALS overrides)
# A new kind needs: a writer (write_KIND I: the I-th write), an expectation
# (expected_KIND I: what a reader must see after write I), a reader (read_KIND: what the real loader
# sees now, failing on a file it refuses) and a stored-file path (file_KIND).
#
# Kill trials. A bash loop runs the writes one after another (each a separate fieldloc process,
# logging `start I` before and `done I` after it exits 0) in its own process group; after a random
# delay (0 to 1.2 s) the whole group gets SIGKILL. Then the stored file must be exactly what write D
# or write D+1 stored, D being the last write logged done (D+1 may have renamed its file before
# the kill reached the loop's log line): byte for byte, and read back by the real loader (for
# calibrations, `calibrate --save` without --force on a copy of the folder must load the stored file
# and refuse a poor calibration as worse; for regions, `regions list --json` must list exactly the
# regions of that write). Otherwise the trial is CORRUPTED (unreadable or a mix) or LOST (an older
# state, or no file although a write completed). Temporary files left by a kill between
# mkstemp and rename are counted: they show how many kills landed inside the write itself.
#
# Full-disk trials. As root a 64 KiB tmpfs is mounted and filled; otherwise RLIMIT_FSIZE
# (`prlimit --fsize`, with SIGXFSZ ignored so write(2) fails with EFBIG) stands in for a full disk, and
# the output says so. Both run as root too (the RLIMIT one also checks the EFBIG path). The write
# must fail with a message naming the stored file and the reason, exit non-zero, leave the old file
# byte for byte and leave no temporary file.
#
# The binary: $FIELDLOC_BIN, else `swift build --product fieldloc` (scratch path $FIELDLOC_SCRATCH if
# set) and its bin path. Exits non-zero when any trial is corrupted or lost or a full-disk check fails.
#
#   .ci/persistence-trials.sh --self-test [N]      checks the checker: N (default 30) kill trials of a
#                                                 deliberately torn writer (the CLI's file copied over the
#                                                 stored one in two halves, 400 ms apart) must be caught
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
self_test=0
if [ "${1:-}" = --self-test ]; then
    self_test=1
    trials=${2:-30}
    set -- "$trials" torn
fi
trials=${1:-200}
[[ "$trials" =~ ^[0-9]+$ ]] || { echo "usage: .ci/persistence-trials.sh [N] [calibration|regions ...] | --self-test [N]"; exit 2; }
[ $# -gt 0 ] && shift
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(calibration regions monitor)
for k in "${kinds[@]}"; do
    case "$k" in calibration|regions|monitor) ;; torn) [ "$self_test" -eq 1 ] || { echo "persistence: 'torn' is for --self-test"; exit 2; } ;;
    *) echo "persistence: unknown kind '$k' (calibration, regions, monitor)"; exit 2 ;; esac
done

if [ -z "${FIELDLOC_BIN:-}" ]; then
    scratch=()
    [ -n "${FIELDLOC_SCRATCH:-}" ] && scratch=(--scratch-path "$FIELDLOC_SCRATCH")
    (cd "$here" && swift build "${scratch[@]}" --product fieldloc > /dev/null) || { echo "persistence: fieldloc did not build"; exit 1; }
    FIELDLOC_BIN="$(cd "$here" && swift build "${scratch[@]}" --show-bin-path)/fieldloc"
fi
[ -x "$FIELDLOC_BIN" ] || { echo "persistence: $FIELDLOC_BIN is not executable"; exit 1; }
export FIELDLOC_BIN

work=$(mktemp -d "${TMPDIR:-/tmp}/fieldloc-persistence.XXXXXX")
mounted=""
failed=0
cleanup() {
    if [ -n "$mounted" ]; then umount "$mounted" 2>/dev/null || true; fi
    if [ "$failed" -eq 0 ]; then rm -rf "$work"; else echo "persistence: the failed trials are kept in $work"; fi
}
trap cleanup EXIT

# --- the kinds ------------------------------------------------------------------------------------
# Eight full-coverage sample sets with different offsets and radii (each fits a `good` calibration,
# each different), and one level-only set that fits a `poor` one.
samples() {  # seed count z-extent
    awk -v seed="$1" -v n="$2" -v zs="$3" 'BEGIN { srand(seed); pi = atan2(0, -1)
        ox = (seed % 7) * 3 - 9; oy = (seed % 5) * 4 - 8; oz = (seed % 3) * 5 - 5; r = 40 + seed % 11
        print "mx_uT,my_uT,mz_uT"
        for (i = 0; i < n; i++) { z = (rand() * 2 - 1) * zs; t = rand() * 2 * pi; q = sqrt(1 - z * z)
            printf "%.3f,%.3f,%.3f\n", r * q * cos(t) * 1.05 + ox, r * q * sin(t) * 0.95 + oy, r * z + oz } }'
}
for s in 1 2 3 4 5 6 7 8; do samples "$s" 150 1 > "$work/samples$s.csv"; done
samples 99 60 0.1 > "$work/poor.csv"
export work

# Every function runs with the state folder in $state and the trial folder in $trial.
file_calibration() { echo "$state/sim.trial.calibration.json"; }
write_calibration() {  # I: stores calibration I, prints its JSON (the CLI prints what it saves)
    "$FIELDLOC_BIN" calibrate --samples "$work/samples$(( ($1 - 1) % 8 + 1 )).csv" --board sim --sensor trial \
        --save --force --json --state-dir "$state"
}
expected_calibration() { cat "$trial/out.$1"; }
read_calibration() {  # the real loader: saving a poor calibration without --force loads the stored one first
    local copy="$trial/readback" status=0
    rm -rf "$copy"; cp -a "$state" "$copy"
    "$FIELDLOC_BIN" calibrate --samples "$work/poor.csv" --board sim --sensor trial --save --state-dir "$copy" \
        > /dev/null 2> "$trial/readback.err" || status=$?
    if [ "$status" -ne 0 ] && grep -q 'is better than the new one' "$trial/readback.err"; then
        cmp -s "$state/sim.trial.calibration.json" "$copy/sim.trial.calibration.json" || { echo "the refused save changed the file"; return 1; }
        cat "$state/sim.trial.calibration.json"; return 0
    fi
    echo "the loader did not accept the stored file: $(head -c 300 "$trial/readback.err")"; return 1
}

# The self-test's torn writer: the CLI saves into a shadow folder, then the file is copied over the
# stored one non-atomically (truncate, first half, 400 ms, second half).
file_torn() { file_calibration; }
write_torn() {
    "$FIELDLOC_BIN" calibrate --samples "$work/samples$(( ($1 - 1) % 8 + 1 )).csv" --board sim --sensor trial \
        --save --force --json --state-dir "$trial/shadow" || return
    local from="$trial/shadow/sim.trial.calibration.json" size
    size=$(stat -c %s "$from")
    { head -c $((size / 2)) "$from"; sleep 0.4; tail -c +$((size / 2 + 1)) "$from"; } > "$(file_calibration)"
}
expected_torn() { expected_calibration "$@"; }
read_torn() { read_calibration; }

file_regions() { echo "$state/regions-trial.json"; }
write_regions() {  # I: adds region rI (so regions r1 ... rI are stored)
    "$FIELDLOC_BIN" regions add "r$1" "$(( 40 + $1 % 10 )).5" "8.$(( $1 % 97 ))" "$(( 100 + $1 ))" --client trial --state-dir "$state"
}
expected_regions() { seq 1 "$1" | sed 's/^/r/' | sort; }
read_regions() {
    local listed
    listed=$("$FIELDLOC_BIN" regions list --json --client trial --state-dir "$state" 2>&1) || { echo "regions list failed: $listed"; return 1; }
    printf '%s\n' "$listed" | sed -n 's/^{"identifier":"\([^"]*\)".*/\1/p' | sort
}

# --- kill trials --------------------------------------------------------------------------------
# matches KIND N: whether the stored state is that of write N (bytes for calibrations, the loader's
# reading for regions; $got holds what the real loader read, or its error).
matches() {
    if [ "$1" != regions ]; then cmp -s "$(file_calibration)" "$trial/out.$2"; else [ "$got" = "$(expected_regions "$2")" ]; fi
}

kill_trials() {
    local kind=$1 ok=0 corrupted=0 lost=0 failed_writes=0 temps=0 inflight_new=0 empty=0 total_writes=0 i n
    echo "persistence: $kind: $trials kill -9 trials"
    for ((i = 1; i <= trials; i++)); do
        trial="$work/$kind/trial$i"; state="$trial/state"
        mkdir -p "$state"
        : > "$trial/log"
        export trial state kind
        # The writer: one fieldloc process per write, in its own process group (setsid execs in place
        # because a background job of a script is not a group leader, so $! is the group's id).
        setsid bash -c '
            set -u
            for ((n = 1; ; n++)); do
                echo "start $n" >> "$trial/log"
                if "write_$kind" "$n" > "$trial/out.$n" 2> "$trial/err.$n"; then echo "done $n" >> "$trial/log"
                else echo "fail $n" >> "$trial/log"; fi
            done' &
        local writer=$!
        # 0 to 1.2 s: from before the first write to a dozen writes in.
        sleep "$(awk -v r="$RANDOM" 'BEGIN { printf "%.3f", (r % 1200) / 1000 }')"
        kill -9 -- "-$writer" 2>/dev/null || true
        wait "$writer" 2>/dev/null || true
        local done_n started_n file verdict=ok detail="" matched="" readable=1
        done_n=$(grep -c '^done ' "$trial/log" || true); done_n=${done_n:-0}
        started_n=$(grep -c '^start ' "$trial/log" || true); started_n=${started_n:-0}
        total_writes=$((total_writes + done_n))
        file=$("file_$kind")
        if ls -A "$state" | grep -q '\.tmp-'; then temps=$((temps + 1)); fi
        got=""
        [ -e "$file" ] && { got=$("read_$kind" 2>&1) || readable=0; }
        if grep -q '^fail ' "$trial/log"; then
            n=$(grep '^fail ' "$trial/log" | head -1 | cut -d' ' -f2)
            verdict=failed; detail="write $n failed: $(head -c 300 "$trial/err.$n")"
        elif [ ! -e "$file" ]; then
            if [ "$done_n" -gt 0 ]; then verdict=lost; detail="no file after $done_n completed writes"; else empty=$((empty + 1)); fi
        else
            for n in "$done_n" $((done_n + 1)); do
                if [ "$n" -ge 1 ] && [ "$n" -le "$started_n" ] && matches "$kind" "$n"; then matched=$n; break; fi
            done
            if [ -z "$matched" ]; then
                verdict=corrupted; detail="the file is neither write $done_n nor write $((done_n + 1)); loader: $(head -c 300 <<< "$got")"
                for ((n = 1; n < done_n; n++)); do
                    if matches "$kind" "$n"; then verdict=lost; detail="the file holds write $n although write $done_n completed"; fi
                done
            elif [ "$readable" -eq 0 ] || [ "$got" != "$("expected_$kind" "$matched")" ]; then
                verdict=corrupted; detail="write $matched is in place but the loader reads: $(head -c 300 <<< "$got")"
            else
                [ "$matched" -gt "$done_n" ] && inflight_new=$((inflight_new + 1))
            fi
        fi
        case "$verdict" in
        ok) ok=$((ok + 1)); rm -rf "$trial" ;;
        lost) lost=$((lost + 1)); echo "persistence: $kind: trial $i LOST: $detail (kept in $trial)" ;;
        failed) failed_writes=$((failed_writes + 1)); echo "persistence: $kind: trial $i WRITE FAILED: $detail (kept in $trial)" ;;
        *) corrupted=$((corrupted + 1)); echo "persistence: $kind: trial $i CORRUPTED: $detail (kept in $trial)" ;;
        esac
    done
    echo "persistence: $kind: $trials trials: $ok intact, $corrupted corrupted, $lost lost, $failed_writes with a failed write"
    echo "persistence: $kind: $total_writes writes completed in all; in $inflight_new trials the write in flight had" \
         "already renamed its file; $temps kills landed inside a write (a temporary file was left);" \
         "$empty came before any write completed"
    [ "$corrupted" -eq 0 ] && [ "$lost" -eq 0 ] && [ "$failed_writes" -eq 0 ]
}

# --- monitor trials ------------------------------------------------------------------------------
# One trial: 200 events of a named monitor (monitor-trial.json), made while no client consumes them by
# `fieldloc monitor exercise` (the producer, standing in for the daemon: a circle condition and a beacon
# identity condition, each event written atomically before the next), which gets SIGKILL to its process
# group after a random 0.05 to 0.6 s and is started again on the same folder until it exits 0 with all
# 200 made. Then the client comes back: `fieldloc monitor events --json` prints the queued events and
# acknowledges each once printed; it too is killed after a random 0 to 0.3 s and started again until it
# exits 0, its lines appended to one file. Must hold: the distinct seqs are exactly 1...200 (0 lost), each
# event is the one the producer made (odd seq the circle `walk`, even the beacon `dock`, each condition
# satisfied and unsatisfied in turn), a seq printed twice is the same event both times and repeats number
# at most one per consumer kill (at least once: killed between printing and acknowledging), and at the end
# nothing is left queued.
monitor_trials() {
    local i ok=0 bad=0 producer_kills=0 consumer_kills=0 duplicates=0 temps=0 restarts pid status
    local trials=${MONITOR_TRIALS:-$(( trials < 8 ? trials : 8 ))}
    echo "persistence: monitor: $trials kill -9 trials of 200 events"
    for ((i = 1; i <= trials; i++)); do
        trial="$work/monitor/trial$i"; state="$trial/state"; mkdir -p "$state"
        local detail="" pk=0 ck=0
        for ((restarts = 0; restarts < 400; restarts++)); do
            setsid "$FIELDLOC_BIN" monitor exercise --name trial --until 200 --state-dir "$state" > /dev/null 2>> "$trial/producer.err" &
            pid=$!
            sleep "$(awk -v r="$RANDOM" 'BEGIN { printf "%.3f", 0.05 + (r % 550) / 1000 }')"
            kill -9 -- "-$pid" 2>/dev/null || true
            status=0; wait "$pid" 2>/dev/null || status=$?
            if ls -A "$state" | grep -q '\.tmp-'; then temps=$((temps + 1)); fi
            [ "$status" -eq 0 ] && break
            [ "$status" -eq 137 ] || { detail="the producer failed (exit $status): $(tail -c 300 "$trial/producer.err")"; break; }
            pk=$((pk + 1))
        done
        : > "$trial/got"
        if [ -z "$detail" ]; then
            for ((restarts = 0; restarts < 400; restarts++)); do
                setsid "$FIELDLOC_BIN" monitor events --json --name trial --state-dir "$state" >> "$trial/got" 2>> "$trial/consumer.err" &
                pid=$!
                sleep "$(awk -v r="$RANDOM" 'BEGIN { printf "%.3f", (r % 300) / 1000 }')"
                kill -9 -- "-$pid" 2>/dev/null || true
                status=0; wait "$pid" 2>/dev/null || status=$?
                [ "$status" -eq 0 ] && break
                [ "$status" -eq 137 ] || { detail="the consumer failed (exit $status): $(tail -c 300 "$trial/consumer.err")"; break; }
                ck=$((ck + 1))
            done
        fi
        producer_kills=$((producer_kills + pk)); consumer_kills=$((consumer_kills + ck))
        if [ -z "$detail" ]; then
            detail=$(awk -v kills="$ck" -F'"' '
                { seq = $0; sub(/.*"seq":/, "", seq); sub(/,.*/, "", seq); seq += 0
                  id = $0; sub(/.*"identifier":"/, "", id); sub(/".*/, "", id)
                  st = $0; sub(/.*"state":"/, "", st); sub(/".*/, "", st)
                  want_id = seq % 2 == 1 ? "walk" : "dock"; k = int((seq + 1) / 2)
                  want_st = k % 2 == 1 ? "satisfied" : "unsatisfied"
                  if (id != want_id || st != want_st) { print "seq " seq " is " id " " st ", made as " want_id " " want_st; bad = 1; exit }
                  if (seq in seen) { dup++; if (seen[seq] != id st) { print "seq " seq " printed twice differently"; bad = 1; exit } }
                  seen[seq] = id st }
                END { if (bad) exit
                      for (s = 1; s <= 200; s++) if (!(s in seen)) { print "seq " s " lost"; exit }
                      n = 0; for (s in seen) n++
                      if (n != 200) { print n " distinct seqs, not 200"; exit }
                      if (dup > kills) { print dup " repeats from " kills " consumer kills"; exit }
                      print "ok " dup + 0 }' "$trial/got")
            if [[ "$detail" == ok* ]]; then
                duplicates=$((duplicates + ${detail#ok }))
                local left
                left=$("$FIELDLOC_BIN" monitor events --json --keep --name trial --state-dir "$state" 2>&1 | wc -l)
                [ "$left" -eq 0 ] && detail="" || detail="$left events still queued after the client read them all"
            fi
        fi
        if [ -z "$detail" ]; then ok=$((ok + 1)); rm -rf "$trial"
        else bad=$((bad + 1)); echo "persistence: monitor: trial $i FAILED: $detail (kept in $trial)"; fi
    done
    echo "persistence: monitor: $trials trials of 200 events: $ok with all 200 delivered, $bad failed;" \
         "$producer_kills producer kills, $consumer_kills consumer kills, $duplicates events delivered twice," \
         "$temps kills left a temporary file"
    [ "$bad" -eq 0 ]
}

# --- full disk ---------------------------------------------------------------------------------
# full_disk KIND HOW STATE-FOLDER: for HOW=tmpfs the folder is on the small tmpfs; the trial's own
# files stay in $work.
full_disk() {
    local kind=$1 how=$2
    trial="$work/full-$kind-$how"; state=$3
    mkdir -p "$trial" "$state"
    export trial state
    "write_$kind" 1 > "$trial/out.1" 2> "$trial/err.1" || { echo "persistence: $kind: full disk ($how): the first write failed: $(cat "$trial/err.1")"; return 1; }
    local file
    file=$("file_$kind")
    cp "$file" "$trial/before"
    local status=0 reason
    if [ "$how" = tmpfs ]; then
        # Fill what is left of the tmpfs (the filler sits beside the state folder).
        dd if=/dev/zero of="$state/../filler" bs=1024 2> /dev/null || true
        reason='No space left on device'
        "write_$kind" 2 > /dev/null 2> "$trial/err.2" || status=$?
        rm -f "$state/../filler"
    else
        reason='File too large'
        # A file-size limit of half the stored file; SIGXFSZ ignored so write(2) returns EFBIG. Output
        # goes to /dev/null and a pipe, which the limit does not cover.
        local limit=$(( $(stat -c %s "$file") / 2 ))
        set +e
        (trap '' XFSZ; exec prlimit --fsize="$limit" bash -c "write_$kind 2" 2>&1 > /dev/null) | cat > "$trial/err.2"
        status=${PIPESTATUS[0]}
        set -e
    fi
    local problems=()
    [ "$status" -ne 0 ] || problems+=("the write succeeded")
    grep -q "$file" "$trial/err.2" || problems+=("the error does not name $file")
    grep -q "$reason" "$trial/err.2" || problems+=("the error does not say '$reason'")
    cmp -s "$file" "$trial/before" || problems+=("the old file changed")
    if ls -A "$state" | grep -q '\.tmp-'; then problems+=("a temporary file was left: $(ls -A "$state" | grep '\.tmp-')"); fi
    local got
    if ! got=$("read_$kind" 2>&1) || [ "$got" != "$("expected_$kind" 1)" ]; then problems+=("the old state does not load: $got"); fi
    echo "persistence: $kind: full disk ($how): exit $status: $(tr '\n' ' ' < "$trial/err.2" | sed 's/  */ /g' | cut -c1-400)"
    if [ ${#problems[@]} -gt 0 ]; then
        printf 'persistence: %s: full disk (%s): FAILED: %s\n' "$kind" "$how" "$(IFS=';'; echo "${problems[*]}")"; return 1
    fi
    echo "persistence: $kind: full disk ($how): passed (clear error naming the file, old state intact, no temporary file)"
}

export -f samples write_calibration expected_calibration read_calibration file_calibration \
    write_regions expected_regions read_regions file_regions matches write_torn expected_torn read_torn file_torn
if [ "$self_test" -eq 1 ]; then
    if kill_trials torn; then
        failed=1; echo "persistence: self-test FAILED: the torn writer was not caught in $trials trials"; exit 1
    fi
    echo "persistence: self-test passed: the checker caught the torn writer"; exit 0
fi
for kind in "${kinds[@]}"; do
    if [ "$kind" = monitor ]; then monitor_trials || failed=1; else kill_trials "$kind" || failed=1; fi
done

small=""
if [ "$(id -u)" -eq 0 ]; then
    small="$work/tmpfs"; mkdir -p "$small"
    if mount -t tmpfs -o size=64k,mode=0755 fieldloc-trial "$small" 2> "$work/mount.err"; then
        mounted=$small
    else
        echo "persistence: cannot mount a tmpfs although root ($(cat "$work/mount.err")); using RLIMIT_FSIZE only"
        small=""
    fi
else
    echo "persistence: not root: no tmpfs can be mounted; RLIMIT_FSIZE (EFBIG) stands in for a full disk"
fi
for kind in "${kinds[@]}"; do
    [ "$kind" = monitor ] && continue  # the monitor's file is written by the same AtomicFile the other kinds check
    if [ -n "$small" ]; then
        mkdir -p "$small/$kind"
        full_disk "$kind" tmpfs "$small/$kind/state" || failed=1
        rm -rf "${small:?}/$kind"
    fi
    full_disk "$kind" rlimit "$work/full-$kind-rlimit/state" || failed=1
done
exit "$failed"
