#!/usr/bin/env bash
# build-payload.sh - build the guest payload into $WORK/payload (or $1):
#   bin/fieldloc-hil <- swift build -c release --static-swift-stdlib --product fieldloc-hil
#   run.sh           <- guest/run.sh
#   bluez.sh         <- guest/bluez.sh (starts and stops the guest's dbus-daemon and bluetoothd)
# The Swift build uses its own scratch path ($WORK/swift) so it never blocks other builds.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/lib.sh"
P="${1:-$WORK/payload}"
SWIFT_SCRATCH="${HILVM_SWIFT_SCRATCH:-$WORK/swift}"
swift build --package-path "$REPO" --scratch-path "$SWIFT_SCRATCH" \
  -c release --static-swift-stdlib --product fieldloc-hil >&2
BIN="$(swift build --package-path "$REPO" --scratch-path "$SWIFT_SCRATCH" -c release --show-bin-path)/fieldloc-hil"
rm -rf "$P"; mkdir -p "$P/bin"
cp "$BIN" "$P/bin/fieldloc-hil"
strip "$P/bin/fieldloc-hil"
install -m 755 "$HERE/guest/run.sh" "$P/run.sh"
install -m 755 "$HERE/guest/bluez.sh" "$P/bluez.sh"
echo "payload: $P ($(du -sh "$P" | cut -f1))" >&2
