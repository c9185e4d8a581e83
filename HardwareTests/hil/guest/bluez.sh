#!/bin/sh
# bluez.sh - the guest's BlueZ stack (installed as /hil/bluez.sh): Debian's dbus-daemon and
# bluetoothd from the base initramfs.
#   bluez.sh bus       start dbus-daemon --system (/usr/share/dbus-1/system.conf: root may own org.bluez)
#   bluez.sh start     start bluetoothd -n -d (debug log in /run/bluetoothd.log), wait until it runs
#   bluez.sh stop      SIGTERM bluetoothd (as systemctl stop does) and wait until it has exited
#   bluez.sh kill      SIGKILL bluetoothd (a crash: no clean-up) and wait until it has exited
#   bluez.sh log       print the last lines of bluetoothd's and dbus-daemon's logs
#   bluez.sh version   print bluetoothd's version
# Every wait has a bound (5 s); exit 0 on success.
BLUETOOTHD=/usr/libexec/bluetooth/bluetoothd
PIDFILE=/run/bluetoothd.pid
LOG=/run/bluetoothd.log

waitfor() {  # waitfor TENTHS CONDITION...: true as soon as CONDITION holds, false after TENTHS/10 s
  n=$1; shift
  while [ "$n" -gt 0 ]; do "$@" && return 0; sleep 0.1; n=$((n - 1)); done
  "$@"
}
# A killed bluetoothd is reparented to /init, which may reap it late: a zombie (state Z) counts as dead.
alive() {
  [ -f "$PIDFILE" ] && [ -r "/proc/$(cat "$PIDFILE")/stat" ] || return 1
  case "$(sed 's/^.*) //' "/proc/$(cat "$PIDFILE")/stat" 2>/dev/null | cut -c1)" in Z|X|"") return 1 ;; esac
}
dead() { ! alive; }

case "$1" in
  bus)
    mkdir -p /run/dbus /var/lib/bluetooth
    dbus-daemon --system --nofork --nopidfile > /run/dbus-daemon.log 2>&1 &
    waitfor 50 test -S /run/dbus/system_bus_socket || { echo "bluez: dbus-daemon did not listen"; exit 1; }
    ;;
  start)
    alive && { echo "bluez: bluetoothd already runs"; exit 1; }
    echo "== bluetoothd start $(date +%s)" >> "$LOG"
    "$BLUETOOTHD" -n -d >> "$LOG" 2>&1 &
    echo $! > "$PIDFILE"
    sleep 0.1
    alive || { echo "bluez: bluetoothd exited at once"; tail -n 20 "$LOG"; exit 1; }
    ;;
  stop)
    alive || { echo "bluez: bluetoothd does not run"; exit 1; }
    kill -TERM "$(cat "$PIDFILE")"
    if ! waitfor 50 dead; then
      echo "bluez: bluetoothd ignored SIGTERM for 5 s; SIGKILL"
      kill -KILL "$(cat "$PIDFILE")"
      waitfor 20 dead || exit 1
    fi
    rm -f "$PIDFILE"
    ;;
  kill)
    alive || { echo "bluez: bluetoothd does not run"; exit 1; }
    kill -KILL "$(cat "$PIDFILE")"
    waitfor 50 dead || exit 1
    rm -f "$PIDFILE"
    ;;
  log)
    echo "bluez: discovery in $LOG"
    grep -E '== bluetoothd|discover|Discover|status 0x0[1-9a-f]|[Ff]ailed|[Bb]usy|error' "$LOG" | grep -v 'device_free\|btd_device_unref' | tail -n 60 | sed 's/^/  | /'
    echo "bluez: last lines of $LOG"
    tail -n "${2:-30}" "$LOG" | sed 's/^/  | /'
    echo "bluez: /run/dbus-daemon.log"
    tail -n 10 /run/dbus-daemon.log | sed 's/^/  | /'
    ;;
  version)
    "$BLUETOOTHD" --version
    ;;
  *)
    echo "usage: bluez.sh bus|start|stop|kill|log|version" >&2; exit 2 ;;
esac
