#!/usr/bin/python3
"""A fake BlueZ for BlueZScannerTests: owns org.bluez on the bus given by DBUS_SYSTEM_BUS_ADDRESS,
serves ObjectManager.GetManagedObjects with one powered adapter /org/bluez/hci0, and implements
Adapter1.SetDiscoveryFilter / StartDiscovery / StopDiscovery. Every call is written, one JSON
object a line, to the log file named by argv[1] (the test reads it back). After StartDiscovery it
emits InterfacesAdded for a Device1 carrying an iBeacon (0x004C manufacturer data) with RSSI -61,
then PropertiesChanged with RSSI -61, an Eddystone-UID service data (0xFEAA) and TX power.
Exits after StopDiscovery or 30 s; with a third argument "stay", keeps running after StopDiscovery
(for a scan started and stopped again and again) and exits after 120 s. With "busy" instead, it
also stays, and refuses StartDiscovery with org.bluez.Error.InProgress (as bluetoothd does while
the kernel still runs a discovery a crashed bluetoothd started) until Properties.Set has powered
the adapter off and on again."""
import json
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

LOG = open(sys.argv[1], "a", buffering=1)
MODE = sys.argv[3] if len(sys.argv) > 3 else ""
STAY = MODE in ("stay", "busy")
BUSY = [MODE == "busy"]
POWER = []
ADAPTER = "/org/bluez/hci0"
DEVICE = ADAPTER + "/dev_C0_FF_EE_00_11_22"
IBEACON = [0x02, 0x15] + list(bytes.fromhex("f7826da64fa24e988024bc5b71e0893e")) + [0x12, 0x34, 0x56, 0x78, 0xC5]
EDDYSTONE_UID = [0x00, 0xEE] + list(bytes.fromhex("0102030405060708090a")) + list(bytes.fromhex("aabbccddeeff")) + [0, 0]


def log(entry):
    LOG.write(json.dumps(entry) + "\n")


def plain(value):
    """D-Bus values as JSON: a dict for a{sv}, a bool for b, a string for s."""
    if isinstance(value, dbus.Dictionary):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (dbus.String, dbus.ObjectPath)):
        return str(value)
    if isinstance(value, (dbus.Int16, dbus.UInt16, dbus.Int32, dbus.UInt32)):
        return int(value)
    return repr(value)


class Root(dbus.service.Object):
    @dbus.service.method("org.freedesktop.DBus.ObjectManager", out_signature="a{oa{sa{sv}}}")
    def GetManagedObjects(self):
        log({"call": "GetManagedObjects"})
        return {dbus.ObjectPath(ADAPTER): {
            "org.bluez.Adapter1": {"Address": "00:11:22:33:44:55", "Powered": dbus.Boolean(True), "Discovering": dbus.Boolean(False)},
        }}

    @dbus.service.signal("org.freedesktop.DBus.ObjectManager", signature="oa{sa{sv}}")
    def InterfacesAdded(self, path, interfaces):
        pass


class Adapter(dbus.service.Object):
    @dbus.service.method("org.bluez.Adapter1", in_signature="a{sv}")
    def SetDiscoveryFilter(self, properties):
        log({"call": "SetDiscoveryFilter", "filter": plain(properties)})

    @dbus.service.method("org.bluez.Adapter1")
    def StartDiscovery(self):
        if BUSY[0]:
            log({"call": "StartDiscovery", "refused": True})
            raise dbus.exceptions.DBusException("Operation already in progress", name="org.bluez.Error.InProgress")
        log({"call": "StartDiscovery"})
        GLib.timeout_add(50, advertise)

    @dbus.service.method("org.bluez.Adapter1")
    def StopDiscovery(self):
        log({"call": "StopDiscovery"})
        if not STAY:
            GLib.timeout_add(100, loop.quit)


    @dbus.service.method("org.freedesktop.DBus.Properties", in_signature="ssv")
    def Set(self, interface, name, value):
        log({"call": "Set", "property": str(name), "value": plain(value)})
        if interface == "org.bluez.Adapter1" and name == "Powered":
            POWER.append(bool(value))
            if POWER[-2:] == [False, True]:
                BUSY[0] = False


class Device(dbus.service.Object):
    @dbus.service.signal("org.freedesktop.DBus.Properties", signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass


def advertise():
    maker = dbus.Dictionary({dbus.UInt16(0x004C): dbus.Array(IBEACON, signature="y")}, signature="qv")
    root.InterfacesAdded(dbus.ObjectPath(DEVICE), {"org.bluez.Device1": {
        "Address": "C0:FF:EE:00:11:22", "AddressType": "random", "RSSI": dbus.Int16(-61), "ManufacturerData": maker,
    }})
    service = dbus.Dictionary({"0000feaa-0000-1000-8000-00805f9b34fb": dbus.Array(EDDYSTONE_UID, signature="y")}, signature="sv")
    device.PropertiesChanged("org.bluez.Device1", {"RSSI": dbus.Int16(-61), "ServiceData": service, "TxPower": dbus.Int16(4)}, [])
    log({"call": "advertised"})
    return False


DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(sys.argv[2])
name = dbus.service.BusName("org.bluez", bus)
root = Root(bus, "/")
adapter = Adapter(bus, ADAPTER)
device = Device(bus, DEVICE)
loop = GLib.MainLoop()
GLib.timeout_add_seconds(120 if STAY else 30, loop.quit)
log({"call": "ready"})
loop.run()
