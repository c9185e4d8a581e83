#!/usr/bin/env bash
# run-all.sh - THE hardware-in-the-loop command: prepare (cached), build the payload, boot the
# QEMU guest, report. Exit 0 only on PASS. Debian 12 x86_64 as root; installs what it needs.
#
#   HardwareTests/hil/run-all.sh            # from anywhere; work dir <checkout>/.build-hil
#
# Env: HILVM_WORK (work dir), HILVM_KABI (pin the kernel ABI), HIL_TIMEOUT (QEMU seconds, 300),
#      HIL_VERBOSE=1 (stream the guest console instead of the summary).
# Steps and caching:
#   1. prepare: host packages (only missing ones), Debian kernel + gpio-sim.ko + bluetoothd and
#      dbus-daemon (debs extracted) + base initramfs, skipped when all exist for the current ABI
#      and the base matches guest/init;
#   2. payload: swift build -c release --static-swift-stdlib --product fieldloc-hil (incremental);
#   3. boot: run-vm.sh with the GNSS simulator, which must receive $PMTK220 from the guest.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/lib.sh"
mkdir -p "$WORK"

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
T0=$(now)
TIMINGS=()

# ---- 1. prepare (cached) ----
T=$(now)
set -e
apt_install "${HIL_PACKAGES[@]}"
KABI_NOW="$(resolve_kabi)"
[ -n "$KABI_NOW" ] || { echo "run-all: cannot resolve the kernel ABI" >&2; exit 3; }
STAMP_WANT="$KABI_NOW $(cat "$HERE/guest/init" "$HERE/mkinitramfs.sh" | md5sum | cut -d' ' -f1)"
if [ -f "$WORK/kernel/boot/vmlinuz-$KABI_NOW" ] && [ -f "$WORK/gpio-sim-$KABI_NOW/gpio-sim.ko" ] \
   && [ -f "$WORK/base.cpio" ] && [ "$(cat "$WORK/base.stamp" 2>/dev/null)" = "$STAMP_WANT" ] \
   && [ -d "/usr/src/linux-headers-$KABI_NOW" ] && [ -x "$WORK/userland/usr/libexec/bluetooth/bluetoothd" ] \
   && [ -x "$WORK/userland/usr/bin/dbus-daemon" ] && [ -z "$(missing_packages "${HIL_GUEST_LIBS[@]}")" ]; then
  echo "[run-all] prepare: cached (kernel $KABI_NOW, gpio-sim.ko, bluetoothd, base initramfs)"
  echo "$KABI_NOW" > "$WORK/kabi"
else
  echo "[run-all] prepare: kernel $KABI_NOW"
  HILVM_KABI="$KABI_NOW" "$HERE/prepare.sh"
  HILVM_KABI="$KABI_NOW" "$HERE/mkinitramfs.sh"
fi
TIMINGS+=("prepare=$(secs "$T" "$(now)")s")

# ---- 2. payload ----
T=$(now)
echo "[run-all] payload: building fieldloc-hil (release, static Swift stdlib)"
HILVM_KABI="$KABI_NOW" "$HERE/build-payload.sh" 2> >(grep -vE '^\[[0-9]+/[0-9]+\]|^Building|^Write|^Compiling' >&2)
TIMINGS+=("payload=$(secs "$T" "$(now)")s")
set +e

# ---- 3. boot ----
T=$(now)
LOG="$WORK/console.log"
GNSS_SUMMARY="$WORK/gnss-summary.json"
rm -f "$LOG" "$GNSS_SUMMARY"
VERBOSE=(--quiet)
[ "${HIL_VERBOSE:-0}" = 1 ] && VERBOSE=()
echo "[run-all] boot: QEMU guest (kernel $KABI_NOW), GNSS simulator on ttyS1"
HILVM_KABI="$KABI_NOW" "$HERE/run-vm.sh" "${VERBOSE[@]}" --timeout "${HIL_TIMEOUT:-300}" --log "$LOG" \
  --gnss-expect-command 220 --gnss-summary "$GNSS_SUMMARY" 2> "$WORK/run-vm.err"
RC=$?
TIMINGS+=("boot+checks=$(secs "$T" "$(now)")s")

# ---- report ----
echo "[run-all] guest report:"
grep -aE '^(ok|not ok) - |^[0-9]+ passed, [0-9]+ failed|^HIL-|^preloaded |^fieldloc-hil: |^bluez: ' "$LOG" | sed 's/^/  /'
echo "[run-all] host GNSS simulator: $(grep -a '"gnss_sim"' "$GNSS_SUMMARY" 2>/dev/null | tr '\n' ' ')"
sed 's/^/[run-all] /' "$WORK/run-vm.err"
if [ "$RC" != 0 ]; then
  echo "[run-all] last console lines ($LOG):"
  tail -n 40 "$LOG" | sed 's/^/  | /'
fi
TIMINGS+=("total=$(secs "$T0" "$(now)")s")
echo "[run-all] timings: ${TIMINGS[*]}"
if [ "$RC" = 0 ]; then echo "[run-all] PASS"; else echo "[run-all] FAIL (run-vm.sh exit $RC)"; fi
exit "$RC"
