// Generated from Boards/*.toml by .ci/embed-boards.py; do not edit.
// A test re-reads Boards/ and requires these texts to equal the files.

/// The text of every file in the repository's `Boards/` folder, by board name, in name order.
enum BuiltinBoards {
    static let files: [(name: String, text: String)] = [
        ("hil-vm", #"""
# The QEMU hardware-in-the-loop guest (HardwareTests/hil): real kernel devices, fake hardware.
#   I2C:  i2c-stub with chip_addr=0x1e,0x19,0x1c,0x6a,0x0d,0x68,0x0c,0x30 plus i2c-dev -> /dev/i2c-0
#         (the only adapter): the LSM303AGR below, and LIS3MDL, LSM6DSOX, QMC5883L, ICM-20948,
#         AK09916 and MMC5983MA for the HIL driver checks (not sensors of this board).
#   GPIO: gpio-sim chip "hil" -> gpiochip0, lines gnss-enable (0), gnss-pps (1), mag-drdy (2),
#         gnss-reset (3), driven from the test through sysfs pull/value.
#   UART: /dev/ttyS1, a QEMU 16550 on a host socket served by gnss_sim.py, an MTK-like
#         receiver at 9600 that acknowledges every $PMTKnnn with $PMTK001,nnn,3.
# It is a real board for the library: devices are opened through the Linux backends.

name = "hil-vm"
title = "QEMU test guest (i2c-stub, gpio-sim, 16550 UART)"
simulated = false

[receiver]
uart = "/dev/ttyS1"
baud = 9600
family = "mtk"
model = "gnss_sim.py (MTK-like)"
wake = ["uart-byte", "power-enable"]

[i2c]
bus = 0

# i2c-stub holds plain register files at these addresses; the test fills in WHO_AM_I values.
[[sensor]]
chip = "lsm303agr-accel"
address = 0x19
orientation = [[1, 0, 0],
               [0, 1, 0],
               [0, 0, 1]]

[[sensor]]
chip = "lsm303agr-mag"
address = 0x1e
orientation = [[1, 0, 0],
               [0, 1, 0],
               [0, 0, 1]]
data_ready = "mag_data_ready"

[gpio]
chip = "gpiochip0"
gnss_power_enable = "gnss-enable"
gnss_pps = "gnss-pps"
mag_data_ready = "mag-drdy"
gnss_reset = "gnss-reset"

[setup]
notes = [
  "Nothing to do by hand: HardwareTests/hil/prepare.sh and run-vm.sh build and boot the guest.",
  "The guest's /init loads i2c-dev, i2c-stub (chip_addr=0x1e,0x19,0x1c,0x6a,0x0d,0x68,0x0c,0x30) and gpio-sim, and sets ttyS1 to 9600 raw.",
]

"""#),
        ("pi-l76k-icm20948", #"""
# Raspberry Pi 3/4 (or Zero 2 W) + a Quectel L76K receiver (CASIC AT6558 inside; answers $PCAS,
# not $PMTK) on the primary UART + an ICM-20948 breakout (e.g. SparkFun 15335 or Adafruit 4554)
# on I2C 1, with its AK09916 magnetometer reached through the ICM-20948's I2C bypass.
#
# Wiring as this file assumes it (L76K HATs and modules route their control pins differently:
# check your board's silkscreen and move the lines below to match):
#   L76K RXD <- GPIO14 TXD [8]      L76K TXD -> GPIO15 RXD [10]
#   L76K STANDBY <- GPIO17 [11]     low = standby; the library drives it as power enable
#   L76K RESET <- GPIO22 [15]       active-low
#   L76K 1PPS -> GPIO18 [12]
#   ICM-20948 SDA/SCL <-> GPIO2 [3] / GPIO3 [5], INT -> GPIO24 [18]

name = "pi-l76k-icm20948"
title = "Raspberry Pi + Quectel L76K + ICM-20948"
simulated = false
bluetooth = "hci0"      # the on-board radio, for beacon ranging (see setup)

[receiver]
uart = "/dev/serial0"
baud = 9600
family = "casic"
model = "L76K"
wake = ["uart-byte", "power-enable"]

[i2c]
bus = 1

# Breakout flat, components up, x arrow forward: sensor y left, z up.
[[sensor]]
chip = "icm20948"
address = 0x69            # AD0 high, the SparkFun and Adafruit default
orientation = [[1,  0,  0],
               [0, -1,  0],
               [0,  0, -1]]
data_ready = "accel_data_ready"
gyro = true               # the gyroscope feeds the attitude filter (±500 dps); false keeps tilt compensation alone

# The AK09916 die's axes differ from the ICM-20948's: its x matches, its y and z are reversed
# (ICM-20948 data sheet, orientation of axes). In body terms with the breakout face up that
# gives x forward, y right (sensor y points right), z down (sensor z points down).
[[sensor]]
chip = "ak09916"
address = 0x0c
orientation = [[1, 0, 0],
               [0, 1, 0],
               [0, 0, 1]]

[gpio]
chip = "gpiochip0"        # Pi 3, Pi 4 and Zero 2 W: header lines GPIO0..GPIO27
gnss_power_enable = "GPIO17"
gnss_reset = "GPIO22"
gnss_pps = "GPIO18"
accel_data_ready = "GPIO24"
active_low = ["gnss_reset"]

[setup]
notes = [
  "Config file: /boot/firmware/config.txt on Raspberry Pi OS Bookworm, /boot/config.txt on older releases.",
  "Add enable_uart=1; on boards with Bluetooth also dtoverlay=disable-bt and 'sudo systemctl disable hciuart'.",
  "Free the UART from the serial console: raspi-config > Interface Options > Serial Port > login shell: No, hardware: Yes.",
  "Enable I2C: dtparam=i2c_arm=on.",
  "sudo usermod -aG dialout,i2c,gpio $USER, then log in again.",
  "i2cdetect -y 1 shows 69 only; 0c appears after the library enables the ICM-20948's bypass (INT_PIN_CFG = 0x02).",
  "Beacons (bluetooth = \"hci0\"): the on-board radio is wired to the PL011 unless moved. dtoverlay=disable-bt frees the PL011 for the receiver but switches Bluetooth off (no hci0, no ranging); to keep both, use dtoverlay=miniuart-bt instead: the receiver gets the PL011 on GPIO14/15 and Bluetooth runs on the mini UART (enough for LE scanning; the mini UART's rate follows the VPU core clock, so fix it with core_freq=250 or force_turbo=1 as the overlay's README asks). Without either overlay the receiver is on the mini UART (/dev/serial0 -> ttyS0) and Bluetooth keeps the PL011.",
]

"""#),
        ("pi4-neo-m9n-lsm303agr", #"""
# Raspberry Pi 4 Model B + u-blox NEO-M9N breakout (e.g. SparkFun GPS-15733) on the primary
# UART + an LSM303AGR breakout (e.g. Adafruit 4413) on I2C 1.
#
# Wiring (40-pin header; BCM numbers, physical pins in brackets):
#   NEO-M9N RX    <- GPIO14 TXD [8]       NEO-M9N TX   -> GPIO15 RXD [10]
#   NEO-M9N INT   <- GPIO17 [11]  EXTINT wake and power-save control
#   load switch   <- GPIO27 [13]  enable of a P-FET / load switch on the module's 3.3 V VCC
#                                 (keep V_BCKP on the board's coin cell or supercap)
#   NEO-M9N RESET <- GPIO22 [15]  RESET_N is active-low
#   NEO-M9N PPS   -> GPIO18 [12]
#   LSM303AGR SDA/SCL <-> GPIO2 SDA [3] / GPIO3 SCL [5]
#   LSM303AGR INT_MAG/DRDY -> GPIO23 [16]
# 3.3 V [1], GND [6]. Everything is 3.3 V logic: do not feed 5 V into the header pins.

name = "pi4-neo-m9n-lsm303agr"
title = "Raspberry Pi 4 + u-blox NEO-M9N + LSM303AGR"
simulated = false
bluetooth = "hci0"      # the on-board radio, for beacon ranging (see setup)

[receiver]
uart = "/dev/serial0"     # GPIO14/15 once Bluetooth is moved off the PL011 (see setup)
baud = 38400              # NEO-M9N UART1 factory default (data sheet, table 19)
family = "ublox"
model = "NEO-M9N"
wake = ["extint", "uart-byte", "power-enable"]   # in order of preference

[i2c]
bus = 1                   # /dev/i2c-1 on header pins 3 and 5

# The breakout lies flat, component side up, its silkscreen x arrow pointing forward. Sensor
# y then points left and z up, so body y (right) = -sensor y and body z (down) = -sensor z.
# Both LSM303AGR halves use the package's axis marking; check by tilting the unit nose down
# (body x down): the accelerometer's body x must read about +1 g.
[[sensor]]
chip = "lsm303agr-accel"
address = 0x19
orientation = [[1,  0,  0],
               [0, -1,  0],
               [0,  0, -1]]

[[sensor]]
chip = "lsm303agr-mag"
address = 0x1e
orientation = [[1,  0,  0],
               [0, -1,  0],
               [0,  0, -1]]
data_ready = "mag_data_ready"

# libgpiod names the Pi 4's header lines GPIO0..GPIO27 on gpiochip0 (the BCM2711 pinctrl).
[gpio]
chip = "gpiochip0"
gnss_power_enable = "GPIO27"
gnss_reset = "GPIO22"
gnss_pps = "GPIO18"
gnss_extint = "GPIO17"
mag_data_ready = "GPIO23"
active_low = ["gnss_reset"]
pull_down = ["gnss_pps"]

[setup]
notes = [
  "Config file: /boot/firmware/config.txt on Raspberry Pi OS Bookworm, /boot/config.txt on older releases.",
  "Add enable_uart=1 to config.txt.",
  "Give the PL011 UART to GPIO14/15: add dtoverlay=disable-bt to config.txt and run 'sudo systemctl disable hciuart' (or dtoverlay=miniuart-bt to keep Bluetooth on the mini UART).",
  "Free the UART from the serial console: raspi-config > Interface Options > Serial Port > login shell: No, hardware: Yes (this removes console=serial0,115200 from cmdline.txt).",
  "Enable I2C: dtparam=i2c_arm=on in config.txt (or raspi-config > Interface Options > I2C).",
  "Let the service user open the devices: sudo usermod -aG dialout,i2c,gpio $USER, then log in again.",
  "Reboot, then check: ls -l /dev/serial0 (-> ttyAMA0), i2cdetect -y 1 (shows 19 and 1e), gpioinfo gpiochip0 (lists GPIO17).",
  "Beacons (bluetooth = \"hci0\"): the on-board radio is wired to the PL011 unless moved. dtoverlay=disable-bt frees the PL011 for the receiver but switches Bluetooth off (no hci0, no ranging); to keep both, use dtoverlay=miniuart-bt instead: the receiver gets the PL011 on GPIO14/15 and Bluetooth runs on the mini UART (enough for LE scanning; the mini UART's rate follows the VPU core clock, so fix it with core_freq=250 or force_turbo=1 as the overlay's README asks). Without either overlay the receiver is on the mini UART (/dev/serial0 -> ttyS0) and Bluetooth keeps the PL011.",
]

"""#),
        ("pi4-zed-f9p-rtk", #"""
# Raspberry Pi 4 Model B + u-blox ZED-F9P RTK receiver (e.g. SparkFun GPS-RTK2 GPS-15136 or
# ArduSimple simpleRTK2B) on the primary UART, with RTCM 3 corrections from an NTRIP caster.
#
# Wiring (40-pin header; BCM numbers, physical pins in brackets):
#   ZED-F9P RX1   <- GPIO14 TXD [8]       ZED-F9P TX1  -> GPIO15 RXD [10]
#   ZED-F9P RESET <- GPIO22 [15]  RESET_N is active-low
#   ZED-F9P PPS   -> GPIO18 [12]  (TIMEPULSE)
#   LSM303AGR SDA/SCL <-> GPIO2 SDA [3] / GPIO3 SCL [5]   (the compass: heading while standing still)
# 3.3 V [1], GND [6]. The antenna must be a multi-band (L1/L2 or L1/L5) survey antenna on a
# ground plane, or the receiver never reaches an RTK fixed solution.
#
# The corrections go into UART1, which the ZED-F9P accepts RTCM 3 on by default
# (CFG-UART1INPROT-RTCM3X = 1). The caster's password is not in this file: put it in
# /etc/fieldloc/ntrip.password (mode 0600, owner fieldloc), or pass --ntrip-password-file to
# fieldlocd, so it never shows in ps or in a copied board file.

name = "pi4-zed-f9p-rtk"
title = "Raspberry Pi 4 + u-blox ZED-F9P (RTK over NTRIP)"
simulated = false

[receiver]
uart = "/dev/serial0"
baud = 38400              # ZED-F9P UART1 factory default (integration manual, CFG-UART1-BAUDRATE)
family = "ublox"
model = "ZED-F9P"
wake = ["uart-byte"]
output = "both"           # NMEA plus NAV-PVT, whose carrSoln says RTK float or fixed

[i2c]
bus = 1                   # /dev/i2c-1 on header pins 3 and 5

# The breakout lies flat, component side up, its x arrow forward: body y = -sensor y, body z = -sensor z.
[[sensor]]
chip = "lsm303agr-accel"
address = 0x19
orientation = [[1,  0,  0],
               [0, -1,  0],
               [0,  0, -1]]

[[sensor]]
chip = "lsm303agr-mag"
address = 0x1e
orientation = [[1,  0,  0],
               [0, -1,  0],
               [0,  0, -1]]

[gpio]
chip = "gpiochip0"
gnss_reset = "GPIO22"
gnss_pps = "GPIO18"
active_low = ["gnss_reset"]
pull_down = ["gnss_pps"]

[ntrip]
url = "ntrip://user@caster.example.net:2101/MOUNT"   # ntrip1:// for NTRIP 1.0 casters
password_file = "/etc/fieldloc/ntrip.password"
gga = "auto"              # send GGA when the mountpoint's source-table nmea flag is 1 (always: VRS casters that do not say so)
gga_interval = 10         # seconds

[setup]
notes = [
  "Config file: /boot/firmware/config.txt on Raspberry Pi OS Bookworm, /boot/config.txt on older releases.",
  "Add enable_uart=1 and dtoverlay=disable-bt to config.txt; run 'sudo systemctl disable hciuart'.",
  "Free the UART from the serial console: raspi-config > Interface Options > Serial Port > login shell: No, hardware: Yes.",
  "Set the caster, user and mountpoint in [ntrip] url; write the password alone on the first line of /etc/fieldloc/ntrip.password (chmod 600).",
  "Enable I2C: dtparam=i2c_arm=on in config.txt.",
  "Let the service user open the devices: sudo usermod -aG dialout,i2c,gpio $USER, then log in again.",
  "Reboot, then check: ls -l /dev/serial0 (-> ttyAMA0), i2cdetect -y 1 (shows 19 and 1e); fieldloc status --board pi4-zed-f9p-rtk shows the Corrections line.",
]

"""#),
        ("pi5-max-m10s-mmc5983ma", #"""
# Raspberry Pi 5 + u-blox MAX-M10S breakout (e.g. SparkFun GPS-18037) on GPIO14/15 + an
# MMC5983MA magnetometer breakout (e.g. SparkFun SEN-19895) on I2C 1. No accelerometer:
# heading is only right while the unit is level (add a [[sensor]] for tilt compensation).
#
# Wiring: MAX-M10S RX <- GPIO14 [8], TX -> GPIO15 [10], EXTINT <- GPIO17 [11],
# PPS -> GPIO18 [12], load switch on VCC <- GPIO27 [13]; MMC5983MA INT -> GPIO23 [16].

name = "pi5-max-m10s-mmc5983ma"
title = "Raspberry Pi 5 + u-blox MAX-M10S + MMC5983MA"
simulated = false
bluetooth = "hci0"      # the on-board radio, for beacon ranging (see setup)

[receiver]
# On a Pi 5, /dev/serial0 is the 3-pin debug connector (ttyAMA10); the header's GPIO14/15 are
# UART0, /dev/ttyAMA0, once dtparam=uart0=on is set (see setup).
uart = "/dev/ttyAMA0"
baud = 9600               # SparkFun's MAX-M10S ships at 9600; the M10 firmware table says 38400:
                          # if nothing arrives, try 38400 here
family = "ublox"
model = "MAX-M10S"
wake = ["extint", "uart-byte", "power-enable"]

[i2c]
bus = 1                   # the header's GPIO2/GPIO3 are i2c-1 on the Pi 5 too

# Breakout flat, components up, x arrow forward.
[[sensor]]
chip = "mmc5983ma"
address = 0x30
orientation = [[1,  0,  0],
               [0, -1,  0],
               [0,  0, -1]]
data_ready = "mag_data_ready"

# The Pi 5's header is on the RP1 I/O chip. Kernels before 6.6.45 (early Bookworm images) name
# it gpiochip4; newer kernels name it gpiochip0. Check with 'gpiodetect' (the RP1 chip is the
# one labelled pinctrl-rp1) and change chip below if yours says gpiochip4. Line names are still
# GPIO0..GPIO27.
[gpio]
chip = "gpiochip0"
gnss_power_enable = "GPIO27"
gnss_pps = "GPIO18"
gnss_extint = "GPIO17"
mag_data_ready = "GPIO23"
pull_down = ["gnss_pps"]

[setup]
notes = [
  "Config file: /boot/firmware/config.txt.",
  "Add dtparam=uart0=on so GPIO14/15 become /dev/ttyAMA0 (Bluetooth has its own UART on the Pi 5; no disable-bt needed).",
  "Make sure no login console runs on ttyAMA0: raspi-config > Interface Options > Serial Port > login shell: No, hardware: Yes.",
  "Enable I2C: dtparam=i2c_arm=on.",
  "GPIO chip: gpiochip4 on kernels before 6.6.45, gpiochip0 on newer ones; 'gpiodetect' tells.",
  "sudo usermod -aG dialout,i2c,gpio $USER, then log in again.",
  "Beacons (bluetooth = \"hci0\"): the Pi 5's Bluetooth has its own UART, so the receiver on UART0 and the radio do not conflict; no overlay is needed.",
]

"""#),
        ("pizero2w-adafruit-gps-hat-lis3mdl-lsm6dsox", #"""
# Raspberry Pi Zero 2 W + Adafruit Ultimate GPS HAT (product 2324, MediaTek MT3339) +
# Adafruit LSM6DSOX + LIS3MDL 9-DoF breakout (product 4517) on I2C 1 (STEMMA QT / pins 3, 5).
#
# The HAT routes the module's TX/RX to GPIO15/GPIO14 [10/8] and PPS to GPIO4 [7].
# The module's EN pin (high or open = on, low = regulator off; the coin cell keeps the RTC
# and almanac) is a pad on the HAT: a wire from EN to GPIO17 [11] lets the library cut power.
# Sensor breakout: LIS3MDL DRDY -> GPIO27 [13], LSM6DSOX INT1 -> GPIO22 [15].

name = "pizero2w-adafruit-gps-hat-lis3mdl-lsm6dsox"
title = "Raspberry Pi Zero 2 W + Adafruit Ultimate GPS HAT + LSM6DSOX/LIS3MDL"
simulated = false
bluetooth = "hci0"      # the on-board radio, for beacon ranging (see setup)

[receiver]
uart = "/dev/serial0"
baud = 9600               # MT3339 factory default
family = "mtk"
model = "MT3339 (Adafruit Ultimate GPS HAT)"
wake = ["uart-byte", "power-enable"]   # any byte ends $PMTK161 standby; EN for full off
time_offset = 0.5         # the MT3339's sentences start about 500 ms after the pulse at 9600 baud; fieldlocd measures it against PPS

[i2c]
bus = 1

# The breakout is mounted upside down (components towards the floor), its x arrow forward:
# sensor x = body x, sensor y = body y, sensor z = body z (down). Both chips on the 4517 share
# the silkscreen's axes.
[[sensor]]
chip = "lsm6dsox"
address = 0x6a            # SA0 low, the Adafruit default (0x6b with the jumper)
orientation = [[1, 0, 0],
               [0, 1, 0],
               [0, 0, 1]]
data_ready = "accel_data_ready"
gyro = true               # the gyroscope feeds the attitude filter (±500 dps); false keeps tilt compensation alone

[[sensor]]
chip = "lis3mdl"
address = 0x1c            # SDO/SA1 low, the Adafruit default (0x1e with the jumper)
orientation = [[1, 0, 0],
               [0, 1, 0],
               [0, 0, 1]]
data_ready = "mag_data_ready"

# Pi Zero 2 W (BCM2710A1): header lines are GPIO0..GPIO27 on gpiochip0.
[gpio]
chip = "gpiochip0"
gnss_power_enable = "GPIO17"
gnss_pps = "GPIO4"
mag_data_ready = "GPIO27"
accel_data_ready = "GPIO22"

[setup]
notes = [
  "Config file: /boot/firmware/config.txt on Raspberry Pi OS Bookworm, /boot/config.txt on older releases.",
  "Add enable_uart=1 to config.txt.",
  "The Zero 2 W gives its PL011 UART to Bluetooth: add dtoverlay=disable-bt and run 'sudo systemctl disable hciuart' so /dev/serial0 is the PL011 on GPIO14/15 (the mini UART's rate follows the core clock).",
  "Free the UART from the serial console: raspi-config > Interface Options > Serial Port > login shell: No, hardware: Yes.",
  "Enable I2C: dtparam=i2c_arm=on in config.txt.",
  "Optional, for the kernel PPS device as well: dtoverlay=pps-gpio,gpiopin=4 (the library then cannot request GPIO4 itself; leave gnss_pps out).",
  "sudo usermod -aG dialout,i2c,gpio $USER, then log in again.",
  "Solder a wire from the HAT's EN pad to GPIO17 for power control, or delete gnss_power_enable and 'power-enable'.",
  "Beacons (bluetooth = \"hci0\"): the on-board radio is wired to the PL011 unless moved. dtoverlay=disable-bt frees the PL011 for the receiver but switches Bluetooth off (no hci0, no ranging); to keep both, use dtoverlay=miniuart-bt instead: the receiver gets the PL011 on GPIO14/15 and Bluetooth runs on the mini UART (enough for LE scanning; the mini UART's rate follows the VPU core clock, so fix it with core_freq=250 or force_turbo=1 as the overlay's README asks). Without either overlay the receiver is on the mini UART (/dev/serial0 -> ttyS0) and Bluetooth keeps the PL011.",
]

"""#),
        ("sim", #"""
# The default board: a simulated receiver and simulated sensors. Works on any machine; no
# device is opened. Use it to try the library, the CLI and the tests without hardware.

name = "sim"
title = "Simulated receiver, LSM6DSOX and LSM303AGR magnetometer (no hardware)"
simulated = true
bluetooth = "hci0"      # a simulated radio that hears the [[beacon]]s below

# The simulated receiver speaks MTK (PMTK commands), like the Adafruit Ultimate GPS.
# No uart: nothing is opened.
[receiver]
baud = 9600
family = "mtk"
model = "MT3339 (simulated)"
wake = "uart-byte"

# Simulated register-map devices on a simulated bus 1.
[i2c]
bus = 1

# Accelerometer and gyroscope in one chip: the gyroscope feeds the attitude filter, so the
# fused heading (roll, pitch, rates, bias) shows out of the box. Its simulated gyroscope has a
# datasheet-typical zero-rate bias, noise and scale error, which the filter learns.
[[sensor]]
chip = "lsm6dsox"
address = 0x6a
orientation = [[1, 0, 0],
               [0, 1, 0],
               [0, 0, 1]]
gyro = true

[[sensor]]
chip = "lsm303agr-mag"
address = 0x1e
orientation = [[1, 0, 0],
               [0, 1, 0],
               [0, 0, 1]]

[setup]
notes = ["Nothing to set up: every device is simulated."]

[sim]
latitude = 47.3769     # Zurich
longitude = 8.5417
altitude = 408.0       # metres above mean sea level
scenario = "walk"      # stationary, walk or drive
receiver_model = "MT3339"
gyroscope_errors = "typical"   # the gyroscope's datasheet-typical bias, drift and noise (or "ideal")

# Bluetooth LE beacons in the simulated world, in metres east and north of the start position,
# along the walk scenario's first leg (north-east) and 2 m beside it. The simulated radio hears
# them with a log-distance path loss (exponent 2), log-normal shadowing and Rayleigh fading.
[[beacon]]
uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
major = 1
minor = 1
east = 26.9
north = 29.7
measured_power = -59
interval_ms = 100

[[beacon]]
uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
major = 1
minor = 2
east = 281.4
north = 284.3
measured_power = -59
interval_ms = 100

[[beacon]]
uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
major = 2
minor = 1
east = 564.3
north = 567.1
measured_power = -65
interval_ms = 200

"""#),
    ]
}
