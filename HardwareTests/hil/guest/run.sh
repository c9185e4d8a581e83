#!/bin/sh
# run.sh - the guest side of the HIL run (installed as /hil/run.sh, started by /init).
#  1. checks that i2c-stub holds every chip address `fieldloc-hil --chips` needs, with the register
#     banks `fieldloc-hil --banks` needs (the ICM-20948's), then preloads it with the sensor fixture (identity, status and data registers of the LSM303AGR, LIS3MDL,
#     LSM6DSOX, QMC5883L, ICM-20948, AK09916 and MMC5983MA) using i2cset, an independent tool,
#     from the list `fieldloc-hil --fixture` prints;
#  2. runs fieldloc-hil (our LinuxHardware code, and the engine with two receivers) against the real
#     kernel devices;
#  2b. runs fieldloc-hil --bluetooth on /dev/vhci (the kernel's virtual HCI controller): the
#     LinuxBluetoothScanner reads back injected iBeacon, AltBeacon and Eddystone adverts;
#  2c. starts Debian's dbus-daemon and bluetoothd (/hil/bluez.sh) and runs fieldloc-hil --bluez on
#     /dev/vhci: BlueZScanner reads the same adverts through the real bluetoothd over D-Bus, and
#     recovers from a bluetoothd restart and an adapter removal;
#  3. reads the configuration registers fieldloc-hil's checks wrote back with i2cget (a
#     `select ADDR REG VALUE` line selects a register bank with i2cset first).
# Exit 0 only when every step passed.
. /run/hil/env
BUS=$HIL_I2C_BUS
export FIELDLOC_HIL_I2C_BUS="$BUS" FIELDLOC_HIL_GPIOCHIP="$HIL_GPIOCHIP" FIELDLOC_HIL_TTY="$HIL_GNSS_TTY" \
  FIELDLOC_HIL_ENABLE_LINE=gnss-enable FIELDLOC_HIL_PPS_LINE=gnss-pps FIELDLOC_HIL_BAUD=9600 \
  FIELDLOC_HIL_GPIO_OBSERVER="$HIL_GPIO_OBSERVER" FIELDLOC_HIL_STUB_FIXTURE=1 FIELDLOC_HIL_GNSS_FIXTURE=1 \
  FIELDLOC_HIL_PMTK=1 FIELDLOC_HIL_ABSENT_ADDR=0x2a FIELDLOC_HIL_MISSING_BUS=9 \
  FIELDLOC_HIL_USB_TTY="$HIL_USB_TTY" FIELDLOC_HIL_USB_ID=0403:6001:FLSIM-USB1 FIELDLOC_HIL_PPS_DEVICE="$HIL_PPS_DEVICE" FIELDLOC_HIL_PPS_TRIGGER_PORT=0x37a

echo "== preload i2c-stub on /dev/i2c-$BUS (chips $HIL_I2C_CHIPS)"
for addr in $(fieldloc-hil --chips | tr ',' ' '); do
  case ",$HIL_I2C_CHIPS," in
    *",$addr,"*) ;;
    *) echo "not ok - preload: i2c-stub was loaded without $addr (chip_addr=$HIL_I2C_CHIPS)"; exit 1 ;;
  esac
done
# i2c-stub shows its array parameters in sysfs in chip_addr order, decimal: 0,0,0,0,0,48,0,0,0,0
for spec in $(fieldloc-hil --banks | tr ',' ' '); do
  set -- $(echo "$spec" | tr ':' ' ')
  addr=$1; index=""; i=0
  for a in $(echo "$HIL_I2C_CHIPS" | tr ',' ' '); do i=$((i + 1)); [ "$a" = "$addr" ] && index=$i; done
  [ -n "$index" ] || { echo "not ok - preload: banked chip $addr is not in chip_addr=$HIL_I2C_CHIPS"; exit 1; }
  for param in "bank_reg $2" "bank_mask $3" "bank_start $4" "bank_end $5"; do
    set -- $param
    got=$(cut -d, -f"$index" "/sys/module/i2c_stub/parameters/$1")
    [ "$got" = "$(($2))" ] || {
      echo "not ok - preload: i2c-stub chip $addr has $1=$got, the fixture needs $2 (hil_i2c_banks=$HIL_I2C_BANKS)"; exit 1; }
  done
done
fieldloc-hil --fixture > /tmp/fixture.txt || { echo "not ok - preload: fieldloc-hil --fixture failed"; exit 1; }
while read -r addr reg val; do
  i2cset -y "$BUS" "$addr" "$reg" "$val" || { echo "not ok - preload: i2cset $addr $reg $val failed"; exit 1; }
done < /tmp/fixture.txt
echo "preloaded $(wc -l < /tmp/fixture.txt) registers"

echo "== fieldloc-hil"
fieldloc-hil
rc=$?

echo "== Bluetooth: fieldloc-hil --bluetooth (hci_vhci controller, kernel HCI socket scanner)"
bt=0
if [ -n "${HIL_VHCI:-}" ]; then
  fieldloc-hil --bluetooth "$HIL_VHCI"
  bt=$?
else
  echo "not ok - bluetooth-vhci: no /dev/vhci: hci_vhci did not load (the base initramfs carries it)"
  bt=1
fi

echo "== Bluetooth through BlueZ: dbus-daemon, bluetoothd, fieldloc-hil --bluez (BlueZScanner over D-Bus)"
bz=0
if [ -z "${HIL_VHCI:-}" ]; then
  echo "not ok - bluetooth-bluez: no /dev/vhci"; bz=1
elif [ ! -x /usr/libexec/bluetooth/bluetoothd ]; then
  echo "not ok - bluetooth-bluez: no bluetoothd in the guest (prepare.sh extracts Debian's bluez)"; bz=1
elif ! /hil/bluez.sh bus || ! /hil/bluez.sh start; then
  echo "not ok - bluetooth-bluez: dbus-daemon or bluetoothd did not start"; /hil/bluez.sh log; bz=1
else
  # hil_bluez_soak=SECONDS on the kernel command line (run-vm.sh -- hil_bluez_soak=30) adds a
  # long ranging run that measures the gaps in bluetoothd's discovery.
  soak=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^hil_bluez_soak=//p')
  HIL_BLUEZ_SOAK="$soak" HIL_BLUETOOTHD_VERSION="$(/hil/bluez.sh version)" HIL_BLUEZ_CONTROL=/hil/bluez.sh \
    fieldloc-hil --bluez "$HIL_VHCI"
  bz=$?
  [ "$bz" = 0 ] || /hil/bluez.sh log 80
fi

echo "== i2cget readback of the configuration fieldloc-hil wrote"
bad=0
while read -r addr reg val bank; do
  if [ "$addr" = select ]; then  # select ADDR REG VALUE: a bank selection
    i2cset -y "$BUS" "$reg" "$val" "$bank" || { echo "not ok - i2cset $reg $val $bank (bank selection) failed"; bad=1; }
    continue
  fi
  got=$(i2cget -y "$BUS" "$addr" "$reg")
  if [ "$got" != "$val" ]; then echo "not ok - i2cget $addr $reg: got $got, fieldloc-hil should have written $val"; bad=1; fi
done <<EOT
$(fieldloc-hil --configuration)
EOT
[ "$bad" = 0 ] && echo "ok - i2cget-readback: $(fieldloc-hil --configuration | grep -vc '^select') configuration registers as written"
[ "$rc" = 0 ] && [ "$bad" = 0 ] && [ "$bt" = 0 ] && [ "$bz" = 0 ]
