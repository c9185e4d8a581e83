#!/usr/bin/env python3
"""Feeds a pseudo-terminal with NMEA epochs at a fixed pace, as a receiver on a UART would.

    feed.py LOG RATE LINK COUNTER

LOG is an NMEA capture; its epochs (each starting with an RMC sentence) are sent over and over,
RATE epochs a second on an absolute schedule, with their time fields rewritten so that time moves
on by one second an epoch (checksums recomputed): the daemon sees an endless, clean receiver.
LINK receives the path of the pty's slave (/dev/pts/N: the daemon's device); COUNTER holds the
number of epochs written so far. RATE 0 sends nothing (an idle receiver). Runs until killed.
"""
import os, sys, time, tty, signal

log, rate, link, counter = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]

# Fields holding hhmmss.ss per sentence type.
TIME_FIELD = {"RMC": 1, "GGA": 1, "GLL": 5, "GST": 1, "ZDA": 1, "GBS": 1, "GNS": 1}

def epochs_of(path):
    epochs, current = [], []
    with open(path, "rb") as f:
        for raw in f:
            line = raw.strip()
            if not line.startswith(b"$") or b"*" not in line:
                continue
            body = line[1:line.rindex(b"*")].decode("ascii", "replace")
            if body[2:5] == "RMC" and current:
                epochs.append(current)
                current = []
            current.append(body.split(","))
    if current:
        epochs.append(current)
    return epochs

def sentence(fields):
    body = ",".join(fields).encode("ascii")
    checksum = 0
    for b in body:
        checksum ^= b
    return b"$" + body + b"*%02X\r\n" % checksum

def epoch_bytes(epoch, second):
    hhmmss = "%02d%02d%02d" % (second // 3600 % 24, second // 60 % 60, second % 60)
    out = []
    for fields in epoch:
        index = TIME_FIELD.get(fields[0][2:5])
        if index is not None and index < len(fields) and fields[index]:
            fields = list(fields)
            fields[index] = hhmmss + fields[index][6:]
        out.append(sentence(fields))
    return b"".join(out)

master, slave = os.openpty()
tty.setraw(slave)
tty.setraw(master)
with open(link + ".tmp", "w") as f:
    f.write(os.ttyname(slave) + "\n")
os.rename(link + ".tmp", link)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))

with open(counter, "w") as f:
    f.write("0\n")
if rate <= 0:
    while True:
        time.sleep(3600)

epochs = epochs_of(log)
start = time.monotonic()
sent = 0
while True:
    due = start + sent / rate
    delay = due - time.monotonic()
    if delay > 0:
        time.sleep(delay)
    os.write(master, epoch_bytes(epochs[sent % len(epochs)], sent))
    sent += 1
    with open(counter + ".tmp", "w") as f:
        f.write("%d\n" % sent)
    os.replace(counter + ".tmp", counter)
