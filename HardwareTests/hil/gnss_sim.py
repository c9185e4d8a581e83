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


def fix_sentences(n: int) -> list:
    t = time.gmtime(1_700_000_000 + n)
    hhmmss = time.strftime("%H%M%S", t) + ".00"
    ddmmyy = time.strftime("%d%m%y", t)
    return [
        nmea(f"GPGGA,{hhmmss},4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
        nmea(f"GPRMC,{hhmmss},A,4807.038,N,01131.000,E,0.0,0.0,{ddmmyy},,,A"),
    ]


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
    ap.add_argument("--usb-device", help="the usb-serial device to unplug: ID,CHARDEV,BUS (e.g. gnssusb0,gnssusb,xhci.0)")
    a = ap.parse_args()

    log = open(a.log, "a", buffering=1) if a.log else None

    def note(direction: str, text: str) -> None:
        if log:
            log.write(f"{time.monotonic():.3f} {direction} {text}\n")

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
    period, next_fix, n = 1.0 / a.rate, time.monotonic(), 0
    noise_until, silent_until, noise_bursts, silences = 0.0, 0.0, 0, []
    unplug_at, replug_at, unplugs = 0.0, 0.0, []
    while True:
        now = time.monotonic()
        if unplug_at and now >= unplug_at:
            dev_id = a.usb_device.split(",")[0]
            out = monitor_command(a.monitor, f"device_del {dev_id}")
            note("--", f"device_del {dev_id}: {out.strip()}")
            unplugs.append("unplugged")
            unplug_at = 0.0
        if replug_at and now >= replug_at and not unplug_at:
            dev_id, chardev, bus = a.usb_device.split(",")
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
                    break
            out = monitor_command(a.monitor, f"device_add usb-serial,chardev={chardev},id={dev_id},bus={bus}")
            note("--", f"device_add {dev_id}: {out.strip()}")
            unplugs.append("replugged")
            replug_at = 0.0
        if streaming and now >= next_fix:
            if len(tx_buf) < 4096 and now >= silent_until:   # no unbounded backlog; nothing while silent
                for s in fix_sentences(n):
                    tx_buf += s
                    tx_lines += 1
                    note("TX", s.decode().strip())
                if now < noise_until:
                    tx_buf += noise(n)
                    noise_bursts += 1
                    note("TX", "[noise burst]")
                n += 1
            next_fix = now + period
        timeout = max(0.0, next_fix - time.monotonic()) if streaming else 0.5
        if conn is None:                      # unplugged: nothing to talk to until the replug
            time.sleep(min(timeout, 0.05) if streaming else 0.05)
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
                if replug_at and unplugs and unplugs[-1] == "unplugged":
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
                    fields = line[1:].split("*")[0].split(",")
                    seconds = float(fields[2]) if len(fields) > 2 and fields[2].replace(".", "", 1).isdigit() else 0.0
                    cmds.append(f"PFLSIM,{fields[1] if len(fields) > 1 else ''}")
                    ack = nmea(f"PFLSIM,ACK,{fields[1] if len(fields) > 1 else ''}")
                    tx_buf += ack
                    note("TX", ack.decode().strip())
                    if fields[1:2] == ["NOISE"]:
                        noise_until = time.monotonic() + seconds
                    elif fields[1:2] == ["UNPLUG"] and a.monitor and a.usb_device:
                        unplug_at = time.monotonic() + 1.0
                        replug_at = unplug_at + seconds
                    elif fields[1:2] == ["SILENT"]:
                        # The acknowledgement goes out first; then nothing for `seconds`.
                        silent_until = time.monotonic() + 0.2 + seconds
                        silences.append(seconds)
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
