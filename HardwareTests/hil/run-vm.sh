#!/usr/bin/env bash
# run-vm.sh - boot the HIL guest (Debian kernel + base initramfs + payload) under QEMU,
# non-interactively, with a host-side GNSS simulator on the guest's /dev/ttyS1, and report
# the guest test's result by exit code.
#
# usage: run-vm.sh [--accel auto|kvm|tcg] [--timeout SEC] [--mem MB] [--smp N]
#                  [--payload DIR] [--test GUEST_PATH] [--no-gnss]
#                  [--gnss-start first-byte|connect] [--gnss-socket PATH]
#                  [--gnss-expect-command NNN] [--gnss-summary FILE] [--usb-at-boot]
#                  [--boot pvh|bzimage] [--log FILE]
#                  [--quiet] [--keep] [--interactive]
#                  [-- EXTRA_KERNEL_ARGS...]
#   --payload DIR  pack DIR into the initramfs as /hil (default: $WORK/payload); ELF files'
#                  libraries are added automatically. Test = /hil/run.sh unless --test.
#   --gnss-expect-command NNN  the run fails unless the guest sent $PMTKNNN to the simulator
#   --gnss-summary FILE  copy the simulator's JSON summary line to FILE
#   --gnss-socket PATH  wire ttyS1 to an already-listening Unix socket of your own
#                  (e.g. socat UNIX-LISTEN:PATH PTY,link=...,rawer) instead of gnss_sim.py
#   (with the simulator, the guest also gets a USB serial adapter, QEMU usb-serial on an xHCI
#   controller, wired to a second gnss_sim.py that plugs, unplugs and replugs it through QEMU's
#   monitor. The guest boots without it (a receiver plugged in late): the checks plug it in with
#   $PFLSIM,USB,PLUG on ttyS1, which the first simulator relays to the second. --usb-at-boot: QEMU
#   starts with the adapter plugged in, as before)
#   --interactive  debugging: console on your terminal (Ctrl-A X quits QEMU), shell after the test
#   --accel auto   KVM only when a real kvm_intel/kvm_amd module is loaded, else TCG.
#   --boot pvh     (default) boot the extracted ELF vmlinux through QEMU's PVH entry;
#                  bzimage = Debian's vmlinuz through SeaBIOS (about 3.4 s slower under TCG).
# exit: 0 PASS | 1 FAIL (guest test failed, or GNSS sim received nothing) |
#       2 no HIL-RESULT line (kernel panic / init crash) | 3 setup error | 124 timeout
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/lib.sh"

ACCEL=auto TIMEOUT=300 MEM=512 SMP=1 PAYLOAD="" TEST="" GNSS=1 GNSS_START=first-byte GNSS_ARGS=() GNSS_SUMMARY=""
LOG="" QUIET=0 KEEP=0 BOOT=pvh GNSS_SOCKET="" INTERACTIVE=0 EXTRA=() USB_AT_BOOT=0
while [ $# -gt 0 ]; do
  case "$1" in
    --accel) ACCEL="$2"; shift 2 ;;
    --timeout) TIMEOUT="$2"; shift 2 ;;
    --mem) MEM="$2"; shift 2 ;;
    --smp) SMP="$2"; shift 2 ;;
    --payload) PAYLOAD="$2"; shift 2 ;;
    --gnss-expect-command) GNSS_ARGS+=(--expect-command "$2"); shift 2 ;;
    --gnss-summary) GNSS_SUMMARY="$2"; shift 2 ;;
    --test) TEST="$2"; shift 2 ;;
    --no-gnss) GNSS=0; shift ;;
    --usb-at-boot) USB_AT_BOOT=1; shift ;;
    --gnss-start) GNSS_START="$2"; shift 2 ;;
    --gnss-socket) GNSS=0; GNSS_SOCKET="$2"; shift 2 ;;
    --log) LOG="$2"; shift 2 ;;
    --boot) BOOT="$2"; shift 2 ;;
    --quiet) QUIET=1; shift ;;
    --keep) KEEP=1; shift ;;
    --interactive) INTERACTIVE=1; shift ;;
    --) shift; EXTRA=("$@"); break ;;
    *) echo "unknown option $1" >&2; exit 3 ;;
  esac
done
[ -f "$KERNEL" ] && [ -f "$WORK/base.cpio" ] || { echo "run prepare.sh and mkinitramfs.sh first" >&2; exit 3; }
PAYLOAD="${PAYLOAD:-$WORK/payload}"
[ -x "$PAYLOAD/run.sh" ] || { echo "no executable $PAYLOAD/run.sh (build the payload first)" >&2; exit 3; }
if [ "$BOOT" = pvh ] && [ -f "$VMLINUX" ]; then BOOTKERNEL="$VMLINUX"; else BOOT=bzimage BOOTKERNEL="$KERNEL"; fi

if [ "$ACCEL" = auto ]; then
  # /dev/kvm alone is not enough: nested "kvm_pvm" (no VT-x/AMD-V) cannot run a stock kernel.
  if [ -w /dev/kvm ] && { [ -d /sys/module/kvm_intel ] || [ -d /sys/module/kvm_amd ]; }; then ACCEL=kvm; else ACCEL=tcg; fi
fi
case "$ACCEL" in
  kvm) ACCEL_ARGS=(-accel kvm -cpu host) ;;
  tcg) ACCEL_ARGS=(-accel "tcg${TB_SIZE:+,tb-size=$TB_SIZE}" -cpu max) ;;
  *) echo "bad --accel $ACCEL" >&2; exit 3 ;;
esac

mkdir -p "$WORK/runs"
RUN="$(mktemp -d "$WORK/runs/run.XXXXXX")"
GNSS_PID=""
GNSS_USB_PID=""
cleanup() {
  [ -n "$GNSS_PID" ] && kill "$GNSS_PID" 2>/dev/null
  [ -n "$GNSS_USB_PID" ] && kill "$GNSS_USB_PID" 2>/dev/null
  [ "$KEEP" = 1 ] && echo "run dir kept: $RUN" >&2 || rm -rf "$RUN"
}
trap cleanup EXIT
LOG="${LOG:-$RUN/console.log}"

# ---- initrd = base.cpio [+ payload.cpio] ----
APPEND="console=ttyS0 quiet panic=-1"
QEMU_EXTRA=()
PR="$RUN/payload-root"
mkdir -p "$PR/hil"
cp -a "$PAYLOAD/." "$PR/hil/"
# libraries of ELF payload files that the base image does not already have
find "$PR/hil" -type f | while read -r f; do
  head -c4 "$f" | grep -q 'ELF' || continue
  ldd "$f" 2>/dev/null | awk '/=> \//{print $3}' | while read -r lib; do
    [ -e "$WORK/initramfs-root$lib" ] || [ -e "$PR$lib" ] || { mkdir -p "$PR$(dirname "$lib")"; cp -L "$lib" "$PR$lib"; }
  done
done
mkcpio "$PR" "$RUN/payload.cpio"
cat "$WORK/base.cpio" "$RUN/payload.cpio" > "$RUN/initrd.cpio"
[ -n "$TEST" ] && APPEND+=" hil_test=$TEST"
APPEND+=" ${EXTRA[*]:-}"

# ---- host side of the UART: GNSS simulator on a Unix socket (QEMU connects as client) ----
if [ "$GNSS" = 1 ]; then
  : > "$RUN/gnss-usb.control"
  python3 "$HERE/gnss_sim.py" --socket "$RUN/gnss.sock" --ready "$RUN/gnss.ready" \
    --log "$RUN/gnss.log" --start "$GNSS_START" --relay "$RUN/gnss-usb.control" "${GNSS_ARGS[@]}" 2>"$RUN/gnss.summary" &
  GNSS_PID=$!
  for _ in $(seq 100); do [ -e "$RUN/gnss.ready" ] && break; sleep 0.05; done
  [ -e "$RUN/gnss.ready" ] || { echo "gnss_sim did not start" >&2; exit 3; }
  SERIAL1=(-chardev "socket,id=gnss,path=$RUN/gnss.sock" -serial chardev:gnss)
  # A second receiver behind a USB serial adapter (FTDI 0403:6001, ftdi_sio in the guest, USB serial
  # number FLSIM-USB1) that the simulator plugs in ($PFLSIM,PLUG), unplugs and plugs back
  # ($PFLSIM,UNPLUG) through QEMU's monitor; the first simulator relays $PFLSIM,USB,... to it.
  USB_PLUGGED=no; [ "$USB_AT_BOOT" = 1 ] && USB_PLUGGED=yes
  python3 "$HERE/gnss_sim.py" --socket "$RUN/gnss-usb.sock" --ready "$RUN/gnss-usb.ready" \
    --log "$RUN/gnss-usb.log" --monitor "$RUN/monitor.sock" --usb-device gnssusb0,gnssusb,xhci.0,FLSIM-USB1 \
    --plugged "$USB_PLUGGED" --control "$RUN/gnss-usb.control" --expect-rx 0 2>"$RUN/gnss-usb.summary" &
  GNSS_USB_PID=$!
  for _ in $(seq 100); do [ -e "$RUN/gnss-usb.ready" ] && break; sleep 0.05; done
  [ -e "$RUN/gnss-usb.ready" ] || { echo "gnss_sim (USB) did not start" >&2; exit 3; }
  SERIAL1+=(-monitor "unix:$RUN/monitor.sock,server=on,wait=off"
            -device qemu-xhci,id=xhci -chardev "socket,id=gnssusb,path=$RUN/gnss-usb.sock")
  if [ "$USB_AT_BOOT" = 1 ]; then
    SERIAL1+=(-device usb-serial,chardev=gnssusb,id=gnssusb0,bus=xhci.0,serial=FLSIM-USB1)
  else
    APPEND+=" hil_usb=late"
  fi
elif [ -n "$GNSS_SOCKET" ]; then
  SERIAL1=(-chardev "socket,id=gnss,path=$GNSS_SOCKET" -serial chardev:gnss)
else
  SERIAL1=(-serial null)
fi

if [ "$INTERACTIVE" = 1 ]; then
  qemu-system-x86_64 -M pc "${ACCEL_ARGS[@]}" -smp "$SMP" -m "$MEM" \
    -nodefaults -no-user-config -display none -no-reboot \
    -kernel "$BOOTKERNEL" -initrd "$RUN/initrd.cpio" -append "$APPEND hil_shell=1" \
    -serial mon:stdio "${SERIAL1[@]}" "${QEMU_EXTRA[@]}"
  exit $?
fi
TIMECMD=()
[ -x /usr/bin/time ] && TIMECMD=(/usr/bin/time -o "$RUN/time.txt" -f "%e %M")
T0=$(date +%s.%N)
if [ "$QUIET" = 1 ]; then OUTFD=/dev/null; else OUTFD=/dev/stderr; fi
timeout -k 5 "$TIMEOUT" "${TIMECMD[@]}" qemu-system-x86_64 \
  -M pc "${ACCEL_ARGS[@]}" -smp "$SMP" -m "$MEM" \
  -nodefaults -no-user-config -display none -no-reboot \
  -kernel "$BOOTKERNEL" -initrd "$RUN/initrd.cpio" -append "$APPEND" \
  -chardev stdio,id=con,signal=off -serial chardev:con \
  -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
  -chardev null,id=ppnull -device isa-parallel,chardev=ppnull,iobase=0x378,irq=7 \
  "${SERIAL1[@]}" "${QEMU_EXTRA[@]}" </dev/null 2>&1 | tr -d '\r' | tee "$LOG" > "$OUTFD"
QRC=${PIPESTATUS[0]}
T1=$(date +%s.%N)

GRC=0
if [ -n "$GNSS_PID" ]; then
  for _ in $(seq 50); do kill -0 "$GNSS_PID" 2>/dev/null || break; sleep 0.1; done
  wait "$GNSS_PID"; GRC=$?; GNSS_PID=""
fi
if [ -n "$GNSS_USB_PID" ]; then
  for _ in $(seq 50); do kill -0 "$GNSS_USB_PID" 2>/dev/null || break; sleep 0.1; done
  kill "$GNSS_USB_PID" 2>/dev/null; wait "$GNSS_USB_PID" 2>/dev/null; GNSS_USB_PID=""
fi

WALL=$(echo "$T1 - $T0" | bc 2>/dev/null || awk "BEGIN{print $T1-$T0}")
RSS=$( [ -f "$RUN/time.txt" ] && awk 'END{print $2}' "$RUN/time.txt" || echo "?")
UPT=$(sed -n 's/^HIL-UPTIME: //p' "$LOG" | tail -n1)
SUMMARY="accel=$ACCEL boot=$BOOT wall=${WALL}s guest_uptime=${UPT:-?} qemu_maxrss_kb=$RSS"
if [ "$GNSS" = 1 ]; then
  SUMMARY+=" gnss=$(grep -a '"gnss_sim": "done"' "$RUN/gnss.summary" 2>/dev/null | tail -n1)"
  SUMMARY+=" gnss_usb=$(grep -a '"gnss_sim"' "$RUN/gnss-usb.summary" 2>/dev/null | tail -n1)"
  [ -n "$GNSS_SUMMARY" ] && cp "$RUN/gnss.summary" "$GNSS_SUMMARY"
fi

# Result: the LAST "HIL-RESULT:" line printed by /init, cross-checked with QEMU's exit
# status from isa-debug-exit (1 = PASS, 3 = FAIL; 0 = ACPI poweroff fallback).
RESULT="$(grep -a '^HIL-RESULT: ' "$LOG" | tail -n1)"
SUMMARY+=" qemu_rc=$QRC"
if [ "$QRC" = 124 ] || [ "$QRC" = 137 ]; then
  echo "run-vm: TIMEOUT after ${TIMEOUT}s $SUMMARY" >&2; exit 124
elif [ "$RESULT" = "HIL-RESULT: PASS" ] && { [ "$QRC" = 1 ] || [ "$QRC" = 0 ]; }; then
  if [ "$GRC" != 0 ]; then echo "run-vm: FAIL (gnss_sim rc=$GRC) $SUMMARY" >&2; exit 1; fi
  echo "run-vm: PASS $SUMMARY" >&2; exit 0
elif [ -n "$RESULT" ] || [ "$QRC" = 3 ]; then
  echo "run-vm: FAIL (${RESULT:-no result line}) $SUMMARY" >&2; exit 1
else
  echo "run-vm: NO RESULT (qemu rc=$QRC; see console log) $SUMMARY" >&2; exit 2
fi
