#!/usr/bin/env bash
# prepare.sh - host preparation for the HIL VM (Debian 12 host, root). Idempotent and cached:
#
#  * installs the host tools (qemu, busybox-static, i2c-tools, gpiod, dev libs, ...) when missing;
#  * downloads Debian's own kernel (linux-image-<abi>, 6.1) with `apt-get download` and EXTRACTS
#    it under $WORK (nothing is installed into the host's /boot), plus the ELF vmlinux for PVH boot;
#  * builds gpio-sim.ko out of tree: Debian's kernels ship with CONFIG_GPIO_SIM unset, so
#    drivers/gpio/gpio-sim.c (+ kernel/irq/irq_sim.c, CONFIG_IRQ_SIM is unset too) is compiled
#    from Debian's linux-source-6.1 against linux-headers-<abi>;
#  * runs depmod on the extracted module tree;
#  * downloads Debian's bluez and dbus-daemon with `apt-get download` and extracts them under
#    $WORK/userland (bluetoothd and dbus-daemon for the guest; the host gets only their libraries).
#
# Env:  HILVM_WORK   work dir (default <checkout>/.build-hil)
#       HILVM_KABI   kernel ABI, e.g. 6.1.0-56-amd64 (default: what linux-image-amd64 depends on)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/lib.sh"
mkdir -p "$WORK/debs"
log() { echo "[prepare] $*" >&2; }

apt_install "${HIL_PACKAGES[@]}"

KABI="$(resolve_kabi)"
[ -n "$KABI" ] || { echo "cannot resolve the kernel ABI (apt-cache depends linux-image-amd64)" >&2; exit 1; }
log "kernel ABI: $KABI"
echo "$KABI" > "$WORK/kabi"

# linux-headers-<abi> is needed to build gpio-sim.ko; it only adds files under /usr/src.
apt_install "linux-headers-$KABI"
HDR="/usr/src/linux-headers-$KABI"
[ -d "$HDR" ] || { echo "missing $HDR (apt-get install linux-headers-$KABI)" >&2; exit 1; }

cd "$WORK/debs"
if ! ls linux-image-"$KABI"_*.deb >/dev/null 2>&1; then
  log "apt-get download linux-image-$KABI"
  retry 3 apt-get -q download "linux-image-$KABI" 2> >(grep -v unsandboxed >&2)
fi
IMGDEB="$(ls linux-image-"$KABI"_*.deb | head -n1)"
dpkg-deb -I "$IMGDEB" >/dev/null || { rm -f "$IMGDEB"; echo "corrupt $IMGDEB removed; run again" >&2; exit 1; }
KVER="$(dpkg-deb -f "$IMGDEB" Version)"          # e.g. 6.1.192-2
SRCPKG="linux-source-$(echo "$KABI" | cut -d. -f1-2)"   # linux-source-6.1

KROOT="$WORK/kernel"
if [ ! -f "$KROOT/boot/vmlinuz-$KABI" ]; then
  log "extracting $IMGDEB -> $KROOT"
  rm -rf "$KROOT"; mkdir -p "$KROOT"
  dpkg-deb -x "$IMGDEB" "$KROOT"
fi
# Uncompressed ELF vmlinux for QEMU's PVH direct boot (-kernel vmlinux): skips the real-mode
# setup + XZ self-decompression of the bzImage, which costs about 3.4 s under TCG.
if [ ! -f "$KROOT/vmlinux-$KABI" ]; then
  log "extracting vmlinux (PVH boot) from vmlinuz"
  python3 - "$KROOT/boot/vmlinuz-$KABI" "$KROOT/vmlinux-$KABI.tmp" <<'PY'
import lzma, sys
d = open(sys.argv[1], "rb").read()
i = d.find(b"\xfd7zXZ\x00")                      # Debian amd64: CONFIG_KERNEL_XZ=y
if i < 0:
    sys.exit("no XZ payload in bzImage")
out = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(d[i:])
if out[:4] != b"\x7fELF":
    sys.exit("bzImage payload is not an ELF")
open(sys.argv[2], "wb").write(out)
PY
  if readelf -n "$KROOT/vmlinux-$KABI.tmp" | grep -q '0x00000012'; then
    mv "$KROOT/vmlinux-$KABI.tmp" "$KROOT/vmlinux-$KABI"
  else
    rm -f "$KROOT/vmlinux-$KABI.tmp"; log "vmlinux has no PVH entry note; run-vm.sh will boot the bzImage"
  fi
fi

# Debian 12 kernel debs put modules under /lib/modules (not /usr/lib/modules)
MODDIR="$KROOT/lib/modules/$KABI"
[ -d "$MODDIR" ] || { echo "no module dir $MODDIR" >&2; exit 1; }

# ---- gpio-sim.ko (out of tree) -------------------------------------------------
GS="$WORK/gpio-sim-$KABI"    # per ABI: a module only loads into the kernel it was built for
if [ ! -f "$GS/gpio-sim.ko" ]; then
  if ! ls "${SRCPKG}"_"$KVER"_*.deb >/dev/null 2>&1; then
    log "apt-get download $SRCPKG=$KVER"
    retry 3 apt-get -q download "$SRCPKG=$KVER" 2> >(grep -v unsandboxed >&2)
  fi
  SRCDEB="$(ls "${SRCPKG}"_"$KVER"_*.deb | head -n1)"
  log "building gpio-sim.ko from $SRCDEB"
  rm -rf "$GS"; mkdir -p "$GS/src"
  SRCTOP="$SRCPKG"     # the tarball's top directory is linux-source-6.1
  dpkg-deb --fsys-tarfile "$SRCDEB" | tar -xO "./usr/src/$SRCPKG.tar.xz" \
    | tar -xJ -C "$GS/src" "$SRCTOP/drivers/gpio/gpio-sim.c" "$SRCTOP/drivers/gpio/gpiolib.h" \
        "$SRCTOP/kernel/irq/irq_sim.c"
  cp "$GS/src/$SRCTOP/drivers/gpio/gpio-sim.c" "$GS/gpio-sim-core.c"
  cp "$GS/src/$SRCTOP/drivers/gpio/gpiolib.h" "$GS/"
  cp "$GS/src/$SRCTOP/kernel/irq/irq_sim.c" "$GS/"
  # irq_to_desc() is not exported to modules in 6.1; the domain's flow handler is
  # handle_simple_irq anyway, so generic_handle_irq() is equivalent.
  sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' "$GS/irq_sim.c"
  grep -q 'generic_handle_irq(irqnum);' "$GS/irq_sim.c" || { echo "irq_sim.c patch did not apply" >&2; exit 1; }
  cp "$HERE/gpio-sim/Kbuild" "$GS/Kbuild"
  make -s -C "$HDR" M="$GS" modules >&2
  strip --strip-debug "$GS/gpio-sim.ko"
  rm -rf "$GS/src"
fi
mkdir -p "$MODDIR/extra"
cp "$GS/gpio-sim.ko" "$MODDIR/extra/gpio-sim.ko"
# The source deb (139 MB) is only needed for this build.
rm -f "$WORK/debs/${SRCPKG}"_*.deb

log "depmod on extracted tree"
depmod -b "$KROOT" "$KABI"
# ---- bluetoothd + dbus-daemon for the guest (extracted, not installed) -------------
apt_install "${HIL_GUEST_LIBS[@]}"
UL="$WORK/userland"
if [ ! -x "$UL/usr/libexec/bluetooth/bluetoothd" ] || [ ! -x "$UL/usr/bin/dbus-daemon" ]; then
  cd "$WORK/debs"
  for p in "${HIL_GUEST_DEBS[@]}"; do
    if ! ls "${p}"_*.deb >/dev/null 2>&1; then
      log "apt-get download $p"
      retry 3 apt-get -q download "$p" 2> >(grep -v unsandboxed >&2)
    fi
  done
  rm -rf "$UL"; mkdir -p "$UL"
  for p in "${HIL_GUEST_DEBS[@]}"; do
    deb="$(ls "${p}"_*.deb | head -n1)"
    dpkg-deb -x "$deb" "$UL" || { rm -f "$deb"; echo "corrupt $deb removed; run again" >&2; exit 1; }
  done
  log "extracted $(cd "$WORK/debs" && ls bluez_*.deb dbus-daemon_*.deb | tr '\n' ' ')-> $UL"
fi
log "done: kernel $KROOT/boot/vmlinuz-$KABI, gpio-sim $GS/gpio-sim.ko"
