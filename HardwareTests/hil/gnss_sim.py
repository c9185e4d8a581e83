#!/usr/bin/env python3
"""Host-side GNSS receiver simulator for the HIL VM's UART (guest /dev/ttyS1).

QEMU connects to our Unix socket as a client (-chardev socket,path=SOCK -serial chardev:...),
so the socket must be listening before QEMU starts: pass --ready FILE and wait for it.

Behaviour (MTK-like receiver):
  * streams $GPGGA + $GPRMC at --rate Hz, starting when the guest sends its first byte
    (--start first-byte, default) or as soon as QEMU connects (--start connect; bytes then
    queue up in the UART/socket until the guest opens the port, as on real hardware);
  * answers every $PMTKnnn,... command with $PMTK001,nnn,3 (ack "success");
  * answers the test commands $PFLSIM,NOISE,S and $PFLSIM,SILENT,S with $PFLSIM,ACK,NOISE|SILENT:
    for S seconds after NOISE, every epoch is followed by line noise: garbage bytes, a UBX frame,
    an RTCM3 frame (both with good checksums), a sentence with a wrong checksum and a line too
    long to be a sentence; for S seconds after SILENT nothing is sent (a receiver gone quiet);
  * with --monitor (QEMU's HMP socket) and --usb-device, answers $PFLSIM,UNPLUG,S with
    $PFLSIM,ACK,UNPLUG, streams 1 s more, then unplugs the guest's USB serial adapter
    (device_del) and plugs it back S seconds later (device_add, same chardev and id);
  * answers $PFLSIM,RATE,HZ (fixes per second from the next epoch on) and $PFLSIM,FIX,Q,SIGMA (GGA
    quality Q: 1 autonomous, 2 differential, 4 RTK fixed, 5 RTK float, with the RMC mode letter to
    match; SIGMA > 0 adds a GST with that latitude and longitude error in metres, 0 drops it);
  * epochs are dated by the host's UTC on a grid of 1/rate seconds (as real receivers date theirs),
    so two simulators name the same epoch by the same time;
  * with --relay FILE, $PFLSIM,USB,REST is passed to the USB simulator (acknowledged as
    $PFLSIM,ACK,USB): the guest reaches that one through this UART even while its adapter is out;
  * with --control FILE (the USB simulator), each line another simulator appends there is handled
    as $PFLSIM,REST; PLUG plugs the adapter in now (device_add), PULL takes it out now (device_del);
    with --plugged no, QEMU starts without the adapter and nothing is sent until it is plugged in
    (a receiver plugged in late); while unplugged the receiver sends nothing (it has no power);
  * logs every line in both directions to --log;
  * on QEMU disconnect prints a JSON summary and exits 0 iff at least --expect-rx valid
    sentences were received from the guest and every --expect-command was among them.
Standard library only.
"""
import argparse, json, os, select, socket, sys, time
from functools import reduce


def nmea(body: str) -> bytes:
    cs = reduce(lambda a, c: a ^ ord(c), body, 0)
    return f"${body}*{cs:02X}\r\n".encode()


def valid(line: str) -> bool:
    if not line.startswith("$") or "*" not in line:
        return False
    body, _, cs = line[1:].partition("*")
    try:
        return int(cs[:2], 16) == reduce(lambda a, c: a ^ ord(c), body, 0)
    except ValueError:
        return False


# GGA quality -> RMC mode letter (NMEA 2.3): autonomous, differential, RTK fixed, RTK float.
MODE_LETTERS = {1: "A", 2: "D", 4: "R", 5: "F"}


def fix_sentences(utc: float, quality: int = 1, sigma: float = 0.0) -> list:
    """GGA and RMC (and GST when sigma > 0) for the epoch at `utc` (seconds since 1970)."""
    t = time.gmtime(int(utc))
    hhmmss = time.strftime("%H%M%S", t) + f".{int(round((utc % 1) * 100)) % 100:02d}"
    ddmmyy = time.strftime("%d%m%y", t)
    mode = MODE_LETTERS.get(quality, "A")
    out = [
        nmea(f"GPGGA,{hhmmss},4807.038,N,01131.000,E,{quality},08,0.9,545.4,M,46.9,M,,"),
        nmea(f"GPRMC,{hhmmss},A,4807.038,N,01131.000,E,0.0,0.0,{ddmmyy},,,{mode}"),
    ]
    if sigma > 0:
        out.append(nmea(f"GPGST,{hhmmss},{sigma:.3f},{sigma:.3f},{sigma:.3f},0.0,{sigma:.3f},{sigma:.3f},{2 * sigma:.3f}"))
    return out


def ubx_frame(cls: int, msg_id: int, payload: bytes) -> bytes:
    body = bytes([cls, msg_id, len(payload) & 0xFF, len(payload) >> 8]) + payload
    a = b = 0
    for byte in body:
        a = (a + byte) & 0xFF
        b = (b + a) & 0xFF
    return b"\xb5\x62" + body + bytes([a, b])


def crc24q(data: bytes) -> int:
    crc = 0
    for byte in data:
        crc ^= byte << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF


def rtcm3_frame(message_type: int, extra: bytes) -> bytes:
    payload = bytes([message_type >> 4, (message_type & 0xF) << 4]) + extra
    head = bytes([0xD3, len(payload) >> 8 & 0x03, len(payload) & 0xFF]) + payload
    return head + crc24q(head).to_bytes(3, "big")


def noise(n: int) -> bytes:
    """One burst of line noise; the framer must skip or count all of it and lose no sentence."""
    bad = bytearray(nmea(f"GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1"))
    bad[-4:-2] = b"00" if bad[-4:-2] != b"00" else b"11"    # a wrong checksum
    return (bytes([0x00, 0xFF, 0x13, 0x80 | (n & 0x7F)]) + b"garbage~\r\n"
            + ubx_frame(0x01, 0x07, bytes(range(n % 7, n % 7 + 12)))
            + rtcm3_frame(1005, bytes(19))
            + bytes(bad)
            + b"$GPTXT," + b"A" * 300 + b"\r\n")


def monitor_command(path: str, command: str) -> str:
    """Sends one HMP command to QEMU's monitor socket; returns what the monitor printed."""
    m = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    m.settimeout(5)
    m.connect(path)
    out = b""
    try:
        while b"(qemu)" not in out:
            out += m.recv(4096)
        m.sendall(command.encode() + b"\n")
        out = b""
        deadline = time.monotonic() + 5
        while b"(qemu)" not in out and time.monotonic() < deadline:
            out += m.recv(4096)
    except (socket.timeout, OSError):
        pass
    finally:
        m.close()
    return out.decode(errors="replace")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--socket", required=True)
    ap.add_argument("--ready", help="file created once the socket is listening")
    ap.add_argument("--log")
    ap.add_argument("--rate", type=float, default=10.0, help="fixes per second")
    ap.add_argument("--start", choices=["first-byte", "connect"], default="first-byte")
    ap.add_argument("--expect-rx", type=int, default=1)
    ap.add_argument("--expect-command", action="append", default=[],
                    help="PMTK command number the guest must send (repeatable); exit 1 without it")
    ap.add_argument("--accept-timeout", type=float, default=60.0)
    ap.add_argument("--monitor", help="QEMU HMP socket, for $PFLSIM,UNPLUG")
    ap.add_argument("--usb-device", help="the usb-serial device to unplug: ID,CHARDEV,BUS[,SERIAL] (e.g. gnssusb0,gnssusb,xhci.0)")
    ap.add_argument("--plugged", choices=["yes", "no"], default="yes",
                    help="no: QEMU starts without the USB adapter; it is plugged in on PLUG")
    ap.add_argument("--relay", help="file to append $PFLSIM,USB,... commands to (for the USB simulator)")
    ap.add_argument("--control", help="file of commands relayed by another simulator, one per line")
    a = ap.parse_args()

    log = open(a.log, "a", buffering=1) if a.log else None

    def note(direction: str, text: str) -> None:
        if log:
            log.write(f"{time.monotonic():.3f} {direction} {text}\n")

    # Relayed commands: those appended from now on (opened before QEMU connects, so none is missed).
    control = open(a.control, "a+") if a.control else None
    if control:
        control.seek(0, os.SEEK_END)
    if os.path.exists(a.socket):
        os.unlink(a.socket)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(a.socket)
    srv.listen(1)
    if a.ready:
        open(a.ready, "w").close()
    srv.settimeout(a.accept_timeout)
    try:
        conn, _ = srv.accept()
    except socket.timeout:
        print(json.dumps({"gnss_sim": "no connection"}), file=sys.stderr)
        return 3
    conn.setblocking(False)
    note("--", "qemu connected")

    rx_buf, tx_buf = b"", b""
    rx_lines, rx_valid, tx_lines, cmds = 0, 0, 0, []
    streaming = a.start == "connect"
    rate, quality, sigma = a.rate, 1, 0.0
    next_fix, n, last_utc = time.monotonic(), 0, 0.0
    noise_until, silent_until, noise_bursts, silences = 0.0, 0.0, 0, []
    unplug_at, replug_at, unplugs = 0.0, 0.0, []
    plugged = a.plugged == "yes"

    def usb_spec():
        parts = a.usb_device.split(",")
        return parts[0], parts[1], parts[2], (parts[3] if len(parts) > 3 else "")

    def unplug() -> None:
        nonlocal plugged, tx_buf
        dev_id = usb_spec()[0]
        out = monitor_command(a.monitor, f"device_del {dev_id}")
        note("--", f"device_del {dev_id}: {out.strip()}")
        unplugs.append("unplugged")
        plugged, tx_buf = False, b""

    def plug() -> bool:
        """device_add (after chardev-add if the unplug took the chardev); False if QEMU is gone."""
        nonlocal conn, plugged, streaming, tx_buf
        dev_id, chardev, bus, serial = usb_spec()
        if conn is None:
            # device_del took the chardev (and our connection) with it: add it back, and
            # QEMU connects again.
            out = monitor_command(a.monitor, f"chardev-add socket,id={chardev},path={a.socket}")
            note("--", f"chardev-add {chardev}: {out.strip()}")
            srv.settimeout(10)
            try:
                conn, _ = srv.accept()
                conn.setblocking(False)
                note("--", "qemu connected again")
            except socket.timeout:
                note("--", "qemu did not connect again")
                return False
        extra = f",serial={serial}" if serial else ""
        out = monitor_command(a.monitor, f"device_add usb-serial,chardev={chardev},id={dev_id},bus={bus}{extra}")
        note("--", f"device_add {dev_id}: {out.strip()}")
        unplugs.append("plugged" if not unplugs else "replugged")
        plugged, streaming, tx_buf = True, True, b""   # a receiver powered by the bus starts talking
        return True

    def command(fields: list) -> bytes:
        """Handles $PFLSIM,fields...; returns the acknowledgement to send (b"" for none)."""
        nonlocal noise_until, silent_until, unplug_at, replug_at, rate, quality, sigma, next_fix
        name = fields[0] if fields else ""
        arg = fields[1] if len(fields) > 1 else ""
        seconds = float(arg) if arg.replace(".", "", 1).isdigit() else 0.0
        cmds.append(f"PFLSIM,{name}")
        if name == "USB" and a.relay:
            with open(a.relay, "a") as relay:
                relay.write(",".join(fields[1:]) + "\n")
            note("--", "relayed to the USB simulator: " + ",".join(fields[1:]))
        elif name == "NOISE":
            noise_until = time.monotonic() + seconds
        elif name == "UNPLUG" and a.monitor and a.usb_device:
            unplug_at = time.monotonic() + 1.0
            replug_at = unplug_at + seconds
        elif name == "PLUG" and a.monitor and a.usb_device:
            if not plugged and not plug():
                return b""
        elif name == "PULL" and a.monitor and a.usb_device:
            if plugged:
                unplug()
        elif name == "SILENT":
            # The acknowledgement goes out first; then nothing for `seconds`.
            silent_until = time.monotonic() + 0.2 + seconds
            silences.append(seconds)
        elif name == "RATE" and seconds > 0:
            rate = seconds
            next_fix = time.monotonic()
        elif name == "FIX" and arg.isdigit():
            quality = int(arg)
            sigma = float(fields[2]) if len(fields) > 2 and fields[2].replace(".", "", 1).isdigit() else 0.0
        return nmea(f"PFLSIM,ACK,{name}")

    while True:
        now = time.monotonic()
        if control:
            for line in control.readlines():
                line = line.strip()
                if line:
                    note("RX", f"[relayed] $PFLSIM,{line}")
                    ack = command(line.split(","))
                    if plugged and conn is not None and ack:
                        tx_buf += ack
        if unplug_at and now >= unplug_at:
            unplug()
            unplug_at = 0.0
        if replug_at and now >= replug_at and not unplug_at:
            replug_at = 0.0
            if not plugged and not plug():    # (a PLUG may have come first)
                break
        if streaming and plugged and now >= next_fix:
            # The epoch is the host's UTC on a grid of 1/rate s; a late wake-up skips an epoch
            # rather than sending two in one.
            utc = time.time()
            slot = int(utc * rate + 1e-6)
            if slot / rate > last_utc + 1e-6 and len(tx_buf) < 4096 and now >= silent_until:   # no unbounded backlog; nothing while silent
                last_utc = slot / rate
                for line in fix_sentences(last_utc, quality, sigma):
                    tx_buf += line
                    tx_lines += 1
                    note("TX", line.decode().strip())
                if now < noise_until:
                    tx_buf += noise(n)
                    noise_bursts += 1
                    note("TX", "[noise burst]")
                n += 1
            next_fix = now + max(0.005, (slot + 1) / rate - time.time())
        timeout = max(0.0, next_fix - time.monotonic()) if streaming and plugged else 0.5
        if control:
            timeout = min(timeout, 0.05)      # relayed commands are looked at every 50 ms
        if conn is None:                      # unplugged: nothing to talk to until the replug
            time.sleep(min(timeout, 0.05))
            continue
        r, w, _ = select.select([conn], [conn] if tx_buf else [], [], timeout)
        if w:
            try:
                sent = conn.send(tx_buf)
                tx_buf = tx_buf[sent:]
            except (BlockingIOError, BrokenPipeError, ConnectionResetError):
                pass                          # a closed peer shows up as EOF on the next read
        if r:
            try:
                data = conn.recv(4096)
            except BlockingIOError:
                continue
            except ConnectionResetError:
                data = b""
            if not data:
                if unplugs and unplugs[-1] == "unplugged":
                    note("--", "connection closed by the unplug")
                    conn.close()
                    conn = None
                    rx_buf = b""
                    continue
                break                         # QEMU exited
            streaming = True
            rx_buf += data
            while b"\n" in rx_buf:
                raw, rx_buf = rx_buf.split(b"\n", 1)
                line = raw.decode(errors="replace").strip()
                if not line:
                    continue
                rx_lines += 1
                ok = valid(line)
                rx_valid += ok
                note("RX", line + ("" if ok else "  [bad checksum]"))
                if ok and line.startswith("$PFLSIM,"):
                    ack = command(line[1:].split("*")[0].split(",")[1:])
                    if ack:
                        tx_buf += ack
                        note("TX", ack.decode().strip())
                elif ok and line.startswith("$PMTK") and not line.startswith("$PMTK001"):
                    cmd = line[5:].split(",")[0].split("*")[0]
                    cmds.append(cmd)
                    ack = nmea(f"PMTK001,{cmd},3")
                    tx_buf += ack
                    note("TX", ack.decode().strip())
    summary = {"gnss_sim": "done", "rx_lines": rx_lines, "rx_valid": rx_valid,
               "tx_lines": tx_lines, "commands": cmds, "noise_bursts": noise_bursts, "silences": silences,
               "usb": unplugs}
    print(json.dumps(summary), file=sys.stderr)
    if log:
        log.write(json.dumps(summary) + "\n")
    if conn is not None:
        conn.close()
    srv.close()
    os.unlink(a.socket)
    missing = [c for c in a.expect_command if c not in cmds]
    if missing:
        print(json.dumps({"gnss_sim": "missing commands", "missing": missing}), file=sys.stderr)
    return 0 if rx_valid >= a.expect_rx and not missing else 1


if __name__ == "__main__":
    sys.exit(main())
