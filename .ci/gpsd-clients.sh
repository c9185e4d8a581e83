#!/usr/bin/env bash
# fieldlocd against gpsd's own programs, outside the test suite.
#
#   .ci/gpsd-clients.sh compare [LOG ...]   side by side with gpsd: each log (default: every log of
#                                           ../shared/corpus/gpsd) fed to a real gpsd by gpsfake and to
#                                           `fieldlocd --replay`, TPVs from both with gpspipe -w,
#                                           compared per epoch; prints the match % per log and overall
#   .ci/gpsd-clients.sh smoke               fieldlocd --board sim on a free port, then gpspipe -w/-r,
#                                           python3-gps and cgps (tmux) against it, printing what each saw
#
# Needs: apt-get install gpsd gpsd-clients python3-gps gpsbabel tmux; a built fieldlocd
# (FIELDLOCD=path, default .build/debug/fieldlocd). Every wait is bounded; children are killed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
FIELDLOCD=${FIELDLOCD:-.build/debug/fieldlocd}
CORPUS=${CORPUS:-../shared/corpus/gpsd}
PY=/usr/bin/python3
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill -TERM -- "-$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

for tool in gpsfake gpspipe gpsd; do
    command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install gpsd gpsd-clients python3-gps" >&2; exit 2; }
done
[ -x "$FIELDLOCD" ] || { echo "no fieldlocd at $FIELDLOCD (swift build --product fieldlocd, or set FIELDLOCD)" >&2; exit 2; }

free_port() { $PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { # port seconds
    local end=$((SECONDS + $2))
    while [ $SECONDS -lt $end ]; do
        $PY -c "import socket,sys; socket.create_connection(('127.0.0.1',$1),0.5)" 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}

compare_one() { # log -> prints "name matched compared"
    local log=$1 name p1 p2 fake ours
    name=$(basename "$log")
    p1=$(free_port); p2=$(free_port)
    setsid gpsfake -1 -p -q -P "$p1" "$log" >"$WORK/fake.out" 2>"$WORK/fake.err" & fake=$!; PIDS+=("$fake")
    setsid "$FIELDLOCD" --replay "$log" --replay-once --speed 50 --port "$p2" 2>"$WORK/ours.err" & ours=$!; PIDS+=("$ours")
    wait_port "$p1" 10 && timeout 90 gpspipe -w "127.0.0.1:$p1" >"$WORK/gpsd.jsonl" 2>/dev/null &
    local g=$!
    wait_port "$p2" 10 && timeout 90 gpspipe -w "127.0.0.1:$p2" >"$WORK/ours.jsonl" 2>/dev/null &
    local o=$!
    wait "$g" "$o" || true
    kill -TERM -- "-$fake" "-$ours" 2>/dev/null || true
    $PY - "$name" "$WORK/gpsd.jsonl" "$WORK/ours.jsonl" <<'EOF'
import json, sys
from datetime import datetime, timezone
WKRO = 619315200
def epochs(path):
    out = {}
    for line in open(path, errors="replace"):
        try: o = json.loads(line)
        except ValueError: continue
        if o.get("class") != "TPV" or o.get("mode", 0) < 2 or "time" not in o: continue
        t = datetime.strptime(o["time"][:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc).timestamp()
        out[round(t)] = o
    return out
tol = {"lat": 1e-7, "lon": 1e-7, "altHAE": 0.01, "altMSL": 0.01, "speed": 0.011, "track": 0.01, "mode": 0}
g, o = epochs(sys.argv[2]), epochs(sys.argv[3])
compared = matched = 0
bad = {}
for t, gt in g.items():
    ot = o.get(t) or o.get(t - WKRO)
    if ot is None: continue
    compared += 1
    ok = True
    for k, v in tol.items():
        if k not in gt: continue
        if k not in ot: ok = False; bad[k + " missing"] = bad.get(k + " missing", 0) + 1; continue
        d = abs(gt[k] - ot[k])
        if k == "track": d = min(d, 360 - d)
        if d > v: ok = False; bad[k] = bad.get(k, 0) + 1
    matched += ok
print(f"{sys.argv[1]} {matched} {compared} gpsd-epochs={len(g)} ours={len(o)} {bad if bad else ''}")
EOF
}

case "${1:-compare}" in
compare)
    shift || true
    logs=("$@")
    if [ ${#logs[@]} -eq 0 ]; then
        for chk in "$CORPUS"/*.log.chk; do [ -s "$chk" ] && logs+=("${chk%.chk}"); done
    fi
    total_m=0; total_c=0
    for log in "${logs[@]}"; do
        [ -f "$log" ] || log="$CORPUS/$log"
        line=$(compare_one "$log")
        read -r name m c rest <<<"$line"
        total_m=$((total_m + m)); total_c=$((total_c + c))
        pct=$([ "$c" -gt 0 ] && $PY -c "print(f'{100*$m/$c:.1f}')" || echo "-")
        printf '%-40s %4s/%-4s %6s %%  %s\n' "$name" "$m" "$c" "$pct" "$rest"
    done
    [ "$total_c" -gt 0 ] && $PY -c "print(f'overall: $total_m/$total_c epochs match ({100*$total_m/$total_c:.1f} %)')"
    ;;
smoke)
    port=$(free_port)
    setsid "$FIELDLOCD" --board sim --speed 10 --port "$port" 2>"$WORK/d.err" & d=$!; PIDS+=("$d")
    wait_port "$port" 15 || { cat "$WORK/d.err"; exit 1; }
    echo "== gpspipe -w -n 12";  timeout 20 gpspipe -w -n 12 "127.0.0.1:$port" | cut -c1-160
    echo "== gpspipe -r -n 12";  timeout 20 gpspipe -r -n 12 "127.0.0.1:$port"
    echo "== python3-gps"
    timeout 30 $PY - "$port" <<'EOF'
import gps, sys, time
s = gps.gps(host="127.0.0.1", port=sys.argv[1]); s.stream(gps.WATCH_ENABLE | gps.WATCH_JSON)
end = time.time() + 20
while time.time() < end:
    if s.waiting(1.0) and (r := s.next()) is not None and r["class"] == "TPV" and getattr(r, "mode", 0) == 3:
        print("TPV", r.lat, r.lon); break
EOF
    if command -v cgps >/dev/null && command -v tmux >/dev/null; then
        echo "== cgps (tmux)"
        sock="fieldlocd-smoke-$$"
        tmux -L "$sock" new-session -d -s cg -x 100 -y 40 "cgps 127.0.0.1:$port"
        sleep 5; tmux -L "$sock" capture-pane -p -t cg | head -12; tmux -L "$sock" kill-server
    fi
    ;;
*) sed -n '2,12p' "$0"; exit 2 ;;
esac
