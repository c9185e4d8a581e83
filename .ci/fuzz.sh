#!/usr/bin/env bash
# Builds the libFuzzer target over the NMEA engine and runs it for a bounded time.
#   .ci/fuzz.sh [SECONDS] [WORKDIR]
# Seeds: Tests/Fuzz/seeds/nmea (kept in the repo) plus the gpsd corpus logs when ../shared is present.
# Exits non-zero on any crash, trap, sanitizer report or whole-vs-chunked framing difference.
set -euo pipefail
seconds=${1:-60}
here=$(cd "$(dirname "$0")/.." && pwd)
work=${2:-$here/.build-fuzz}
mkdir -p "$work/corpus" "$work/artifacts"

sources=$(find "$here/Sources/NMEA" -name '*.swift' | sort)
# The gold linker warns about every ASan helper symbol; keep that noise in a log unless the build fails.
if ! swiftc -O -parse-as-library -sanitize=fuzzer,address -module-name NMEAFuzz \
    $sources "$here/Tests/Fuzz/NMEAFuzzer.swift" -o "$work/nmea-fuzzer" > "$work/build.log" 2>&1; then
    grep -v 'Cannot export local symbol' "$work/build.log" | tail -40
    echo "fuzz: the fuzzer did not build"; exit 1
fi

cp "$here"/Tests/Fuzz/seeds/nmea/* "$work/corpus/"
if [ -d "$here/../shared/corpus/gpsd" ]; then
    # Each log split into 4 KiB pieces keeps inputs small enough for fast iterations.
    for log in "$here"/../shared/corpus/gpsd/*.log; do
        split -b 4096 -d -a 3 "$log" "$work/corpus/$(basename "$log")."
    done
else
    echo "fuzz: ../shared not found; seeding from the repository's seeds only"
fi

echo "fuzz: running for ${seconds}s"
"$work/nmea-fuzzer" "$work/corpus" -max_total_time="$seconds" -max_len=8192 -timeout=10 \
    -artifact_prefix="$work/artifacts/" -print_final_stats=1 2>&1 | tee "$work/fuzz.log" | grep -E 'stat::|ERROR|Done|crash|SUMMARY' || true
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo "fuzz: FAILED (exit $status); reproducer in $work/artifacts/"
    tail -40 "$work/fuzz.log"
    exit 1
fi
runs=$(grep -Eo 'stat::number_of_executed_units: [0-9]+' "$work/fuzz.log" | awk '{print $2}')
echo "fuzz: passed, ${runs:-?} executions in ${seconds}s without a crash"
