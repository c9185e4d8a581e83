#!/usr/bin/env bash
# mkinitramfs.sh - build the BASE initramfs ($WORK/base.cpio): busybox, the kernel modules
# (with dependencies), i2c-tools + gpiod tools + their libraries, Debian's bluetoothd and
# dbus-daemon + their libraries, the runtime libraries a
# Swift (--static-swift-stdlib) binary needs, and /init. The test payload is appended later
# as a second cpio by run-vm.sh (the kernel unpacks concatenated cpio archives in order).
# Writes $WORK/base.stamp (ABI + checksum of the inputs) so run-all.sh can skip a rebuild.
#
# Env: HILVM_WORK, HILVM_KABI (see prepare.sh)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/lib.sh"
[ -f "$KERNEL" ] || { echo "run prepare.sh first (no $KERNEL)" >&2; exit 1; }
ROOT="$WORK/initramfs-root"
OUT="$WORK/base.cpio"
rm -rf "$ROOT" "$WORK/base.stamp"
mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,run,tmp,root,hil/bin,lib/modules,lib/x86_64-linux-gnu}

# /dev/console must exist in the archive: the kernel opens it for init's stdio before
# /init runs (devtmpfs is not auto-mounted: CONFIG_DEVTMPFS_MOUNT is off in Debian).
mknod -m 600 "$ROOT/dev/console" c 5 1
mknod -m 666 "$ROOT/dev/null" c 1 3

# busybox (static) + applet links; the real i2c-tools are used instead of busybox's i2c*
cp /bin/busybox "$ROOT/bin/busybox"
for a in $(/bin/busybox --list); do
  case "$a" in busybox|i2c*) continue ;; esac
  ln -s busybox "$ROOT/bin/$a"
done

# i2c-tools and libgpiod v1 tools (dynamically linked; libraries copied by ldd)
for t in /usr/sbin/i2cget /usr/sbin/i2cset /usr/sbin/i2cdetect /usr/sbin/i2cdump \
         /usr/bin/gpiodetect /usr/bin/gpioinfo /usr/bin/gpioget /usr/bin/gpioset /usr/bin/gpiofind; do
  copy_elf "$ROOT" "$t"
done
# Swift static-stdlib binaries need libstdc++/libgcc_s/libm; fieldloc-hil links libi2c and libgpiod.
for l in libc.so.6 libm.so.6 libstdc++.so.6 libgcc_s.so.1 libi2c.so.0 libgpiod.so.2 libpthread.so.0 libdl.so.2 librt.so.1 libutil.so.1; do
  [ -e "/lib/x86_64-linux-gnu/$l" ] && cp -L "/lib/x86_64-linux-gnu/$l" "$ROOT/lib/x86_64-linux-gnu/$l"
done

# bluetoothd and dbus-daemon from Debian's debs (prepare.sh extracted them to $WORK/userland), with
# the libraries ldd finds on the host; a minimal system bus that lets root own org.bluez, and
# bluetoothd's main.conf with AutoEnable (new adapters are powered on). /hil/bluez.sh runs them.
UL="$WORK/userland"
[ -x "$UL/usr/libexec/bluetooth/bluetoothd" ] || { echo "run prepare.sh first (no bluetoothd in $UL)" >&2; exit 1; }
copy_elf "$ROOT" "$UL/usr/libexec/bluetooth/bluetoothd" /usr/libexec/bluetooth/bluetoothd
copy_elf "$ROOT" "$UL/usr/bin/dbus-daemon" /usr/bin/dbus-daemon
mkdir -p "$ROOT/usr/share/dbus-1" "$ROOT/etc/bluetooth" "$ROOT/var/lib/bluetooth"
cat > "$ROOT/usr/share/dbus-1/system.conf" <<'EOF'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=/run/dbus/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="root"/>
    <allow own="org.bluez"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
printf '[General]\n[Policy]\nAutoEnable=true\n' > "$ROOT/etc/bluetooth/main.conf"
printf 'root:x:0:0:root:/root:/bin/sh\nmessagebus:x:100:101::/nonexistent:/bin/false\n' > "$ROOT/etc/passwd"
printf 'root:x:0:\nmessagebus:x:101:\n' > "$ROOT/etc/group"
echo 3f2d5c1e0b7a49c6a8e4d2f1c0b9a876 > "$ROOT/etc/machine-id"

# kernel modules + dependencies, resolved with modprobe against the extracted tree
MODS="configfs i2c-dev i2c-stub gpio-sim xhci-pci ftdi_sio hci_vhci parport_pc pps_parport"   # xhci + ftdi_sio: the unpluggable USB serial adapter;
# hci_vhci (+ bluetooth): /dev/vhci, the virtual HCI controller the Bluetooth scanner check plays;
# parport_pc + pps_parport: a kernel PPS source
MD="$KROOT/lib/modules/$KABI"
mkdir -p "$ROOT/lib/modules/$KABI"
for m in $MODS; do
  modprobe -d "$KROOT" -S "$KABI" --show-depends "$m" | awk '$1=="insmod"{print $2}'
done | sort -u | while read -r ko; do
  rel="${ko#"$MD"/}"
  mkdir -p "$ROOT/lib/modules/$KABI/$(dirname "$rel")"
  cp "$ko" "$ROOT/lib/modules/$KABI/$rel"
done
cp "$MD/modules.builtin" "$MD/modules.builtin.modinfo" "$MD/modules.order" "$ROOT/lib/modules/$KABI/"
depmod -b "$ROOT" "$KABI"

install -m 755 "$HERE/guest/init" "$ROOT/init"

mkcpio "$ROOT" "$OUT"
echo "$KABI $(cat "$HERE/guest/init" "$HERE/mkinitramfs.sh" | md5sum | cut -d' ' -f1)" > "$WORK/base.stamp"
echo "base initramfs: $OUT ($(du -h "$OUT" | cut -f1)), modules: $(find "$ROOT/lib/modules" -name '*.ko' | wc -l)" >&2
