#!/usr/bin/env python3
"""The development set's conformance table: each capture of devset.tsv replayed by `fieldloc replay
--json` and compared with gpsd 3.22's TPV records by the shared compare_tpv.py.

usage: devset.py LOGDIR [--fieldloc PATH] [--compare PATH] [-- REPLAY-FLAGS...]

LOGDIR holds the captures, each named NAME.log (NAME from devset.tsv; copy each from its repository
at the commit given, e.g. `git show COMMIT:PATH > LOGDIR/NAME.log` in a clone). gpsd's reference
NAME.log.chk is made beside it with `gpsfake -1 -p -s 115200` when missing (Debian bookworm's gpsd
3.22: `apt-get install gpsd gpsd-clients`). Prints one row per capture and the pooled and mean ratios.
Flags after `--` go to `fieldloc replay` (`-- --gpsd322-cycle` for gpsd 3.22's end of cycle, QUIRKS.md M-1).

gpsd 3.22 moves the dates of captures made before its GPS week rollover pivot by 1024 weeks (a 2005
log is dated 2025); compare_tpv.py retries such times 1024 weeks earlier (its default).
"""
import json, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def manifest():
    for line in open(os.path.join(HERE, "devset.tsv")):
        if line.startswith("#") or not line.strip():
            continue
        name, repo, commit, path, what = line.rstrip("\n").split("\t")
        yield name, repo, commit, path, what


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    if not args:
        print(__doc__)
        return 2
    logdir = args[0]
    fieldloc = os.path.join(ROOT, ".build", "debug", "fieldloc")
    compare = os.path.join(ROOT, "..", "shared", "tools", "compare_tpv.py")
    if "--fieldloc" in args:
        fieldloc = args[args.index("--fieldloc") + 1]
    if "--compare" in args:
        compare = args[args.index("--compare") + 1]
    rows, matched_all, compared_all = [], 0, 0
    for name, repo, commit, path, what in manifest():
        log = os.path.join(logdir, name + ".log")
        if not os.path.exists(log):
            print("%-28s missing: copy %s at %s, %s" % (name, repo, commit, path), file=sys.stderr)
            continue
        chk = log + ".chk"
        if not os.path.exists(chk):
            with open(chk, "w") as out:
                subprocess.run(["gpsfake", "-1", "-p", "-s", "115200", log], stdout=out, stderr=subprocess.DEVNULL, timeout=3600)
        with tempfile.TemporaryDirectory() as tmp:
            fixes = os.path.join(tmp, "fixes.jsonl")
            with open(fixes, "w") as out:
                subprocess.run([fieldloc, "replay", log, "--json", "--quiet"] + extra, stdout=out, check=True)
            result = subprocess.run([sys.executable, compare, chk, fixes], capture_output=True, text=True).stdout
        m = re.search(r"epochs\s+matched (\d+)/(\d+)", result)
        matched, compared = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
        matched_all += matched
        compared_all += compared
        rows.append((name, matched, compared))
    print("| capture | epochs matched | ratio |")
    print("| --- | ---: | ---: |")
    for name, matched, compared in rows:
        print("| %s | %d/%d | %s |" % (name, matched, compared, "%.3f" % (matched / compared) if compared else "-"))
    scored = [m / c for _, m, c in rows if c]
    if compared_all:
        print("| pooled | %d/%d | %.3f |" % (matched_all, compared_all, matched_all / compared_all))
    if scored:
        print("| mean of the captures | | %.3f |" % (sum(scored) / len(scored)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
