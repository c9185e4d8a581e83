# lib.sh - helpers shared by the HIL scripts (sourced, not executed).
#
# The work directory defaults to <checkout>/.build-hil (git-ignored through `.build*`);
# HILVM_WORK overrides it. Nothing here names a fixed machine path.
HIL_HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HIL_HERE/../.." && pwd)"
WORK="${HILVM_WORK:-$REPO/.build-hil}"
KABI="${HILVM_KABI:-$(cat "$WORK/kabi" 2>/dev/null || true)}"
KROOT="$WORK/kernel"
KERNEL="$KROOT/boot/vmlinuz-$KABI"          # bzImage (SeaBIOS + self-decompression)
VMLINUX="$KROOT/vmlinux-$KABI"               # ELF for PVH direct boot (much faster under TCG)

# Host packages every HIL step needs (Debian 12 names).
HIL_PACKAGES=(qemu-system-x86 busybox-static i2c-tools gpiod libi2c-dev libgpiod-dev pkg-config
              kmod cpio xz-utils gcc make libc6-dev binutils python3 time bc)

# Debian packages whose binaries go into the guest (bluetoothd and dbus-daemon): fetched with
# `apt-get download` and extracted under $WORK/userland, never installed on the host.
HIL_GUEST_DEBS=(bluez dbus-daemon)
# The host's copies of the shared libraries those binaries need: the guest's are copied from the
# host (ldd), which is Debian 12 like the debs. Only missing ones are installed.
HIL_GUEST_LIBS=(libglib2.0-0 libdbus-1-3 libexpat1 libasound2 libdw1 libsystemd0 libudev1 libselinux1
                libaudit1 libcap-ng0 libapparmor1)

# retry N CMD...: run CMD up to N times, 5 s, 10 s, ... apart (flaky mirrors).
retry() {
  local n="$1" i=1; shift
  until "$@"; do
    [ "$i" -ge "$n" ] && { echo "failed after $n attempts: $*" >&2; return 1; }
    echo "attempt $i of $n failed: $*; retrying in $((5 * i)) s" >&2
    sleep $((5 * i)); i=$((i + 1))
  done
}

# missing_packages PKG...: prints the packages that are not installed.
missing_packages() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
  done
}

APT_UPDATED=0
apt_update_once() {
  [ "$APT_UPDATED" = 1 ] && return 0
  retry 3 apt-get update -q >/dev/null && APT_UPDATED=1
}

# apt_install PKG...: installs whatever of PKG is missing (idempotent; no-op when all present).
apt_install() {
  local missing
  missing=$(missing_packages "$@")
  [ -z "$missing" ] && return 0
  echo "[hil] apt-get install $(echo $missing)" >&2
  apt_update_once
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive retry 3 apt-get install -y -q --no-install-recommends $missing >/dev/null
}

# resolve_kabi: the kernel ABI to use (HILVM_KABI, else what linux-image-amd64 depends on).
resolve_kabi() {
  local k="${HILVM_KABI:-}"
  if [ -z "$k" ]; then
    k=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: linux-image-\(.*\)$/\1/p' | head -n1)
  fi
  if [ -z "$k" ]; then
    apt_update_once
    k=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: linux-image-\(.*\)$/\1/p' | head -n1)
  fi
  echo "$k"
}

# copy_elf ROOT FILE [DEST-IN-ROOT]: copy an ELF file plus every shared library that
# ldd reports (host and guest are the same Debian 12 glibc), keeping the library paths.
copy_elf() {
  local root="$1" file="$2" dest="${3:-$2}"
  mkdir -p "$root$(dirname "$dest")"
  cp -L "$file" "$root$dest"
  ldd "$file" 2>/dev/null | awk '/=> \//{print $3} /^\t\/[^ ]+ \(/{print $1}' | while read -r lib; do
    if [ ! -e "$root$lib" ]; then
      mkdir -p "$root$(dirname "$lib")"
      cp -L "$lib" "$root$lib"
    fi
  done
}

# mkcpio DIR OUT: newc archive of DIR, files owned by root
mkcpio() {
  (cd "$1" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc --owner=0:0) > "$2"
}
