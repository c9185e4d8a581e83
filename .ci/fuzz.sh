#!/usr/bin/env bash
# Builds the libFuzzer targets and runs them.
#
#   .ci/fuzz.sh [SECONDS] [WORKDIR] [TARGET...]      each target for SECONDS (default 25)
#   .ci/fuzz.sh --runs N [WORKDIR] [TARGET...]       each target for exactly N executions (libFuzzer -runs=N)
#
# Targets (default: all, in this order):
#   nmea         NMEA framer + parser + epoch assembler           Tests/Fuzz/NMEAFuzzer.swift
#   ubxnav       binary navigation: UBX and CASIC decoders + epoch merger  Tests/Fuzz/UBXNavigationFuzzer.swift
#   ubx          receiver side of UBX/PMTK/CASIC: UBX frames, MON-VER, ACK/NAK, identities
#                                                                  Tests/Fuzz/UBXFuzzer.swift
#   board        board-file loader (TOML subset + validation)     Tests/Fuzz/BoardFuzzer.swift
#   calibration  stored-calibration loader and the sample CSVs    Tests/Fuzz/CalibrationFuzzer.swift
#   gpsd         gpsd request parser, WATCH, JSON reader/encoders Tests/Fuzz/GPSDCommandFuzzer.swift
#   hci          Bluetooth HCI event parser + H4 packet framer      Tests/Fuzz/HCIEventFuzzer.swift
#                (skipped, with the reason printed, while that file does not exist)
#   beacon       Bluetooth LE advertisement parser (iBeacon, AltBeacon, Eddystone) and the ranger
#                                                                  Tests/Fuzz/BeaconFuzzer.swift
#   ntrip        NTRIP response heads, chunked bodies, source tables, sessions over the RTCM 3 framer
#                                                                  Tests/Fuzz/NTRIPFuzzer.swift
#
# Seeds: Tests/Fuzz/seeds/<target>/ (kept in the repository); the nmea target adds the gpsd corpus
# logs when ../shared is present. Corpora grow in WORKDIR/<target>/corpus and are kept between runs.
# Exits non-zero on any crash, trap, sanitizer report, timeout or broken invariant, printing the
# reproducer's path (WORKDIR/<target>/artifacts/...); rerun one with `WORKDIR/<target>-fuzzer FILE`.
# FIELDLOC_FUZZ_SKIP_KNOWN=1 makes a fuzzer skip inputs that hit a bug already reported and not yet
# fixed (each fuzzer file names them), for long campaigns; CI leaves it unset so such bugs fail CI.
#
# How the fuzzers are built. Every fuzzer is plain swiftc with -sanitize=fuzzer,address (SwiftPM has
# no libFuzzer mode), over the real sources of the targets, never copies:
# - nmea, gpsd and beacon: the target sources and the fuzzer file compiled as ONE module (NMEAFuzz, GPSDFuzz,
#   BeaconFuzz; Sources/Beacons imports nothing);
#   Sources/NMEA imports nothing and Sources/GPSDProtocol imports NMEA only `#if canImport(NMEA)`.
# - ubx, board, calibration: their targets `import HardwareInterfaces`, `import NMEA`, `import Heading`,
#   `import RealModule`, which a one-module build cannot satisfy. So each dependency is compiled as
#   its own module, exactly as SwiftPM splits them: `swiftc -wmo -emit-module -c -module-name X` into
#   WORKDIR/modules/X.swiftmodule + X.o (instrumented too, and -enable-testing so a fuzzer may
#   `@testable import` internals such as ReceiverProtocols' ListenSink); then the fuzzer file is
#   compiled against them with -I and linked with their objects. RealModule comes from the
#   swift-numerics checkout SwiftPM resolved (.build/checkouts, else `swift package resolve` into
#   WORKDIR/spm); its C shim module is header-only, so -Xcc -I of its include folder is enough.
# - calibration: the loader lives in the Foundation-using FieldLocationOutput target, whose full module
#   chain includes the engine and the simulators. The fuzzer module is the real files that hold the loader and what
#   they reference, against the modules Heading, NMEA and LinuxHardware (AtomicFile's file calls; its
#   C modules CI2C, CGPIOD and CRefclock are found by -I of their module maps and link libi2c and libgpiod): Sources/FieldLocationOutput/{HeadingFiles,
#   HeadingFusionCSV,FixTextFormat,GeomagText,CalibrationText}.swift against the module FieldLocationStore too (atomic
#   writes; a build error here means the loader started to depend on another file: add that file to calibration_sources below). They are compiled with
#   -package-name FieldLocation, as SwiftPM does, for the `package` helpers they share with other targets.
# Modules and fuzzers are rebuilt only when their inputs or flags change (a hash stamp beside each).
set -euo pipefail
# shellcheck disable=SC2046  # $(swift_files ...) splits into file names on purpose (no spaces in them)

here=$(cd "$(dirname "$0")/.." && pwd)
mode=time
runs=0
if [ "${1:-}" = "--runs" ]; then
    mode=runs
    runs=${2:?--runs needs a number}
    shift 2
    [[ "$runs" =~ ^[0-9]+$ ]] || { echo "fuzz: --runs $runs is not a number"; exit 2; }
    seconds=0
else
    seconds=${1:-25}
    [ $# -gt 0 ] && shift
    [[ "$seconds" =~ ^[0-9]+$ ]] || { echo "fuzz: SECONDS '$seconds' is not a number (usage: .ci/fuzz.sh [SECONDS] [WORKDIR] [TARGET...] | --runs N [WORKDIR] [TARGET...])"; exit 2; }
fi
work=${1:-$here/.build-fuzz}
[ $# -gt 0 ] && shift
all_targets=(nmea ubxnav ubx board calibration gpsd hci beacon ntrip)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
    [[ " ${all_targets[*]} " == *" $t "* ]] || { echo "fuzz: unknown target '$t' (targets: ${all_targets[*]})"; exit 2; }
done
mkdir -p "$work/modules"
work=$(cd "$work" && pwd)

# FIELDLOC_FUZZ_SANITIZE=fuzzer drops AddressSanitizer for long campaigns (several times the
# executions per second; Swift's own bounds and overflow checks still trap). CI keeps ASan.
sanitize=${FIELDLOC_FUZZ_SANITIZE:-fuzzer,address}
[[ "$sanitize" =~ ^fuzzer(,address)?$ ]] || { echo "fuzz: FIELDLOC_FUZZ_SANITIZE must be fuzzer or fuzzer,address"; exit 2; }
flags=(-O -parse-as-library -sanitize="$sanitize")
swift6=(-swift-version 6)

# Drops the gold linker's noise about ASan helper symbols from a build log shown on failure.
show_log() { grep -v 'Cannot export local symbol' "$1" | tail -40; }

compiler=$(swiftc --version 2>&1 | head -1)

# swiftc_cached LABEL OUTPUT LOG "EXTRA-INPUT..." ARG... : runs `swiftc ARG...` unless OUTPUT was built
# by the same compiler and arguments from the same files: a hash of those and of every argument and
# extra input that is a file is kept in OUTPUT.stamp.
swiftc_cached() {
    local label=$1 out=$2 log=$3 extra=$4 a inputs=() skip=0
    shift 4
    # Input files: every argument that is a file, except what follows -o and -emit-module-path (outputs).
    for a in "$@"; do
        if [ "$skip" -eq 1 ]; then skip=0; continue; fi
        case "$a" in -o|-emit-module-path) skip=1; continue ;; esac
        [ -f "$a" ] && inputs+=("$a")
    done
    for a in $extra; do inputs+=("$a"); done
    local stamp
    stamp=$( { echo "$compiler"; printf '%s\n' "$@"; cat "${inputs[@]}"; } | sha256sum | cut -c1-16)
    if [ -f "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ]; then return 0; fi
    rm -f "$out.stamp"
    echo "fuzz: compiling $label"
    if ! swiftc "$@" > "$log" 2>&1; then
        show_log "$log"
        echo "fuzz: $label did not build"; return 1
    fi
    echo "$stamp" > "$out.stamp"
}

# build_module NAME LANGUAGE-FLAGS-VAR "DEPENDENCY..." SOURCE... : WORKDIR/modules/NAME.swiftmodule + NAME.o
# (every module in the package FieldLocation, as SwiftPM compiles them, for the `package` declarations they share)
build_module() {
    local name=$1 lang=$2 deps=$3 d
    shift 3
    local -n langflags=$lang
    local out="$work/modules" interfaces=""
    # A changed dependency changes its .swiftmodule, which rebuilds its importers.
    for d in $deps; do interfaces+=" $out/$d.swiftmodule"; done
    swiftc_cached "module $name ($# files)" "$out/$name.o" "$out/$name.log" "$interfaces" \
        "${flags[@]}" "${langflags[@]}" -wmo -enable-testing -module-name "$name" -package-name FieldLocation \
        -emit-module -emit-module-path "$out/$name.swiftmodule" -I "$out" -c "$@" -o "$out/$name.o"
}

# link_fuzzer TARGET FUZZER-FILE MODULE... : WORKDIR/TARGET-fuzzer from the fuzzer file and the modules' objects
link_fuzzer() {
    local target=$1 file=$2 m
    shift 2
    local objects=() interfaces=""
    for m in "$@"; do objects+=("$work/modules/$m.o"); interfaces+=" $work/modules/$m.swiftmodule"; done
    swiftc_cached "the $target fuzzer" "$work/$target-fuzzer" "$work/$target-build.log" "$interfaces" \
        "${flags[@]}" "${swift6[@]}" -module-name "${target^}FuzzMain" -I "$work/modules" \
        "$file" "${objects[@]}" -o "$work/$target-fuzzer"
}

swift_files() { find "$@" -maxdepth 1 -name '*.swift' | sort; }

find_numerics() {
    local dir
    for dir in "$here/.build/checkouts/swift-numerics" "$work/spm/checkouts/swift-numerics"; do
        if [ -d "$dir/Sources/RealModule" ]; then echo "$dir"; return 0; fi
    done
    echo "fuzz: resolving swift-numerics into $work/spm" >&2
    (cd "$here" && swift package --scratch-path "$work/spm" resolve > "$work/resolve.log" 2>&1) || { tail -20 "$work/resolve.log" >&2; return 1; }
    dir="$work/spm/checkouts/swift-numerics"
    [ -d "$dir/Sources/RealModule" ] && echo "$dir"
}

calibration_sources=(FieldLocationOutput/HeadingFiles FieldLocationOutput/HeadingFusionCSV FieldLocationOutput/FixTextFormat
    FieldLocationOutput/GeomagText FieldLocationOutput/CalibrationText)

# build TARGET: prints a reason and returns 3 when the target is skipped.
build() {
    local target=$1
    case "$target" in
    nmea)
        swiftc_cached "the nmea fuzzer" "$work/nmea-fuzzer" "$work/nmea-build.log" "" \
            "${flags[@]}" -module-name NMEAFuzz $(swift_files "$here/Sources/NMEA" "$here/Sources/NMEA/Sentences" "$here/Sources/NMEA/Binary" "$here/Sources/NMEA/Geoid") \
            "$here/Tests/Fuzz/NMEAFuzzer.swift" -o "$work/nmea-fuzzer"
        ;;
    ubxnav)
        swiftc_cached "the ubxnav fuzzer" "$work/ubxnav-fuzzer" "$work/ubxnav-build.log" "" \
            "${flags[@]}" -module-name UBXNavFuzz $(swift_files "$here/Sources/NMEA" "$here/Sources/NMEA/Sentences" "$here/Sources/NMEA/Binary" "$here/Sources/NMEA/Geoid") \
            "$here/Tests/Fuzz/UBXNavigationFuzzer.swift" -o "$work/ubxnav-fuzzer"
        ;;
    gpsd)
        if [ ! -f "$here/Tests/Fuzz/GPSDCommandFuzzer.swift" ]; then
            echo "fuzz: gpsd: skipped: Tests/Fuzz/GPSDCommandFuzzer.swift does not exist yet"; return 3
        fi
        swiftc_cached "the gpsd fuzzer" "$work/gpsd-fuzzer" "$work/gpsd-build.log" "" \
            "${flags[@]}" -module-name GPSDFuzz \
            $(swift_files "$here/Sources/NMEA" "$here/Sources/NMEA/Sentences" "$here/Sources/NMEA/Binary" "$here/Sources/NMEA/Geoid" "$here/Sources/GPSDProtocol") \
            "$here/Tests/Fuzz/GPSDCommandFuzzer.swift" -o "$work/gpsd-fuzzer"
        ;;
    beacon)
        swiftc_cached "the beacon fuzzer" "$work/beacon-fuzzer" "$work/beacon-build.log" "" \
            "${flags[@]}" "${swift6[@]}" -module-name BeaconFuzz $(swift_files "$here/Sources/Beacons") \
            "$here/Tests/Fuzz/BeaconFuzzer.swift" -o "$work/beacon-fuzzer"
        ;;
    ntrip)
        swiftc_cached "the ntrip fuzzer" "$work/ntrip-fuzzer" "$work/ntrip-build.log" "" \
            "${flags[@]}" -module-name NTRIPFuzz \
            $(swift_files "$here/Sources/NMEA" "$here/Sources/NMEA/Sentences" "$here/Sources/NMEA/Binary" "$here/Sources/NMEA/Geoid" "$here/Sources/NTRIP") \
            "$here/Tests/Fuzz/NTRIPFuzzer.swift" -o "$work/ntrip-fuzzer"
        ;;
    ubx)
        build_module NMEA swift6 "" $(swift_files "$here/Sources/NMEA" "$here/Sources/NMEA/Sentences" "$here/Sources/NMEA/Binary" "$here/Sources/NMEA/Geoid") || return 1
        build_module HardwareInterfaces swift6 "" $(swift_files "$here/Sources/HardwareInterfaces") || return 1
        build_module PowerPolicy swift6 "" $(swift_files "$here/Sources/PowerPolicy") || return 1
        build_module Devices swift6 "PowerPolicy" $(swift_files "$here/Sources/Devices") || return 1
        build_module ReceiverProtocols swift6 "NMEA HardwareInterfaces Devices" $(swift_files "$here/Sources/ReceiverProtocols") || return 1
        link_fuzzer ubx "$here/Tests/Fuzz/UBXFuzzer.swift" NMEA HardwareInterfaces PowerPolicy Devices ReceiverProtocols || return 1
        ;;
    board)
        build_module HardwareInterfaces swift6 "" $(swift_files "$here/Sources/HardwareInterfaces") || return 1
        build_module PowerPolicy swift6 "" $(swift_files "$here/Sources/PowerPolicy") || return 1
        build_module Devices swift6 "PowerPolicy" $(swift_files "$here/Sources/Devices") || return 1
        build_module BoardConfig swift6 "HardwareInterfaces Devices" $(swift_files "$here/Sources/BoardConfig") || return 1
        link_fuzzer board "$here/Tests/Fuzz/BoardFuzzer.swift" HardwareInterfaces PowerPolicy Devices BoardConfig || return 1
        ;;
    calibration)
        local numerics
        numerics=$(find_numerics) || { echo "fuzz: calibration: swift-numerics could not be resolved"; return 1; }
        local shims=(-Xcc -I"$numerics/Sources/_NumericsShims/include")
        local real_flags=("${shims[@]}") heading_flags=("${swift6[@]}" "${shims[@]}")
        build_module RealModule real_flags "" $(swift_files "$numerics/Sources/RealModule") || return 1
        build_module Heading heading_flags "RealModule" $(swift_files "$here/Sources/Heading") || return 1
        build_module NMEA swift6 "" $(swift_files "$here/Sources/NMEA" "$here/Sources/NMEA/Sentences" "$here/Sources/NMEA/Binary" "$here/Sources/NMEA/Geoid") || return 1
        local c_modules=(-I "$here/Sources/CI2C" -I "$here/Sources/CGPIOD" -I "$here/Sources/CRefclock" -I "$here/Sources/CBluetooth")
        local linux_flags=("${swift6[@]}" "${c_modules[@]}")
        build_module HardwareInterfaces swift6 "" $(swift_files "$here/Sources/HardwareInterfaces") || return 1
        build_module BluetoothHCI swift6 "HardwareInterfaces" $(swift_files "$here/Sources/BluetoothHCI") || return 1
        build_module DBusWire swift6 "" $(swift_files "$here/Sources/DBusWire") || return 1
        build_module LinuxHardware linux_flags "HardwareInterfaces BluetoothHCI DBusWire" $(swift_files "$here/Sources/LinuxHardware") || return 1
        build_module FieldLocationStore linux_flags "LinuxHardware" $(swift_files "$here/Sources/FieldLocationStore") || return 1
        local files=() f
        for f in "${calibration_sources[@]}"; do files+=("$here/Sources/$f.swift"); done
        swiftc_cached "the calibration fuzzer" "$work/calibration-fuzzer" "$work/calibration-build.log" \
            "$work/modules/RealModule.swiftmodule $work/modules/Heading.swiftmodule $work/modules/NMEA.swiftmodule $work/modules/HardwareInterfaces.swiftmodule $work/modules/BluetoothHCI.swiftmodule $work/modules/DBusWire.swiftmodule $work/modules/LinuxHardware.swiftmodule $work/modules/FieldLocationStore.swiftmodule" \
            "${flags[@]}" "${heading_flags[@]}" "${c_modules[@]}" -module-name CalibrationFuzz -package-name FieldLocation -I "$work/modules" \
            "${files[@]}" "$here/Tests/Fuzz/CalibrationFuzzer.swift" \
            "$work/modules/RealModule.o" "$work/modules/Heading.o" "$work/modules/NMEA.o" \
            "$work/modules/HardwareInterfaces.o" "$work/modules/BluetoothHCI.o" "$work/modules/DBusWire.o" "$work/modules/LinuxHardware.o" "$work/modules/FieldLocationStore.o" -li2c -lgpiod \
            -o "$work/calibration-fuzzer"
        ;;
    hci)
        build_module HardwareInterfaces swift6 "" $(swift_files "$here/Sources/HardwareInterfaces") || return 1
        build_module BluetoothHCI swift6 "HardwareInterfaces" $(swift_files "$here/Sources/BluetoothHCI") || return 1
        link_fuzzer hci "$here/Tests/Fuzz/HCIEventFuzzer.swift" HardwareInterfaces BluetoothHCI || return 1
        ;;
    esac
}

# Largest input per target: whole board and calibration files, a few UBX frames, a gpsd request batch.
# FIELDLOC_FUZZ_MAX_LEN overrides it for every target (long campaigns: smaller inputs, more executions).
max_len() {
    if [ -n "${FIELDLOC_FUZZ_MAX_LEN:-}" ]; then echo "$FIELDLOC_FUZZ_MAX_LEN"; return; fi
    case "$1" in
    nmea) echo 8192 ;;
    ubxnav) echo 4096 ;;
    ubx) echo 10240 ;;
    board) echo 8192 ;;
    calibration) echo 4096 ;;
    gpsd) echo 4096 ;;
    hci) echo 1024 ;;
    beacon) echo 512 ;;
    ntrip) echo 4096 ;;
    esac
}

seed() {
    local target=$1 corpus=$2
    mkdir -p "$corpus"
    cp "$here/Tests/Fuzz/seeds/$target"/* "$corpus/" 2>/dev/null || true
    if [ "$target" = nmea ]; then
        if [ -d "$here/../shared/corpus/gpsd" ]; then
            # Each log split into 4 KiB pieces keeps inputs small enough for fast iterations.
            for log in "$here"/../shared/corpus/gpsd/*.log; do
                split -b 4096 -d -a 3 "$log" "$corpus/$(basename "$log")."
            done
        else
            echo "fuzz: nmea: ../shared not found; seeding from the repository's seeds only"
        fi
    fi
}

summary=()
failed=0
for target in "${targets[@]}"; do
    status=0
    build "$target" || status=$?
    if [ "$status" -eq 3 ]; then summary+=("$target: skipped (no fuzzer file)"); continue; fi
    if [ "$status" -ne 0 ]; then summary+=("$target: BUILD FAILED"); failed=1; continue; fi
    dir="$work/$target"
    mkdir -p "$dir/artifacts"
    seed "$target" "$dir/corpus"
    if [ "$mode" = runs ]; then
        limit=(-runs="$runs")
        echo "fuzz: $target: running $runs executions"
    else
        limit=(-max_total_time="$seconds")
        echo "fuzz: $target: running for ${seconds}s"
    fi
    start=$(date +%s)
    set +e
    # A 16 MB quarantine (ASan's default is 256 MB) still catches use-after-free of recent frees but
    # reuses warm pages: the fuzzers allocate 16 KB framers per input, and page faults halved the rate.
    # Swift's own crash backtracer is off so a trap reaches libFuzzer's handler (which writes the
    # reproducer) instead of racing it. An -O trap prints no message: it shows as libFuzzer's
    # "deadly signal"; the stack libFuzzer prints, or a debug build of the code, names the check.
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=16} "$work/$target-fuzzer" "$dir/corpus" "${limit[@]}" -max_len="$(max_len "$target")" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$dir/artifacts/" -print_final_stats=1 > "$dir/fuzz.log" 2>&1
    status=$?
    set -e
    elapsed=$(( $(date +%s) - start ))
    grep -E 'stat::number_of_executed_units|stat::peak_rss|ERROR|SUMMARY|Test unit written' "$dir/fuzz.log" | sed "s/^/fuzz: $target: /" || true
    executed=$(grep -Eo 'stat::number_of_executed_units: [0-9]+' "$dir/fuzz.log" | awk '{print $2}' | tail -1)
    if [ "$status" -ne 0 ]; then
        reproducer=$(grep -Eo 'Test unit written to [^ ]+' "$dir/fuzz.log" | tail -1 | sed 's/Test unit written to //')
        echo "fuzz: $target: FAILED (exit $status) after ${elapsed}s; reproducer: ${reproducer:-none written, see $dir/fuzz.log}"
        grep -v 'Cannot export local symbol' "$dir/fuzz.log" | tail -40
        summary+=("$target: FAILED, reproducer ${reproducer:-?}")
        failed=1
        continue
    fi
    echo "fuzz: $target: passed, ${executed:-?} executions in ${elapsed}s without a crash"
    summary+=("$target: passed, ${executed:-?} executions in ${elapsed}s")
done

echo
for line in "${summary[@]}"; do echo "fuzz: $line"; done
exit "$failed"
