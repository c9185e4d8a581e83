#!/usr/bin/env python3
"""Beacon ranging judged on real RSSI at known distances.

Feeds public recordings to `fieldloc beacons calibrate` (the fit) and `fieldloc beacons estimate`
(the product's ranger: 2 s trimmed mean, log-distance model) and prints, per data set, the distance
error and the proximity confusion before fitting (n = 2, 1 m power -59 dBm), after fitting on one
part and judged on the held-out part, and with the held-out part's own fit (the model's floor).
Standard library only; the data stay outside the repository (see README.md).
"""
import argparse, ast, csv, datetime, math, os, subprocess, sys, tempfile

IMMEDIATE, NEAR = 0.5, 4.0  # RangingModel's immediateLimit and nearLimit
CLASSES = ["immediate", "near", "far"]


def proximity(d):
    return "immediate" if d <= IMMEDIATE else "near" if d <= NEAR else "far"


def pabr(root):
    """Position-Annotated BLE RSSI Dataset: fingerprint set_1 (fit) and set_2 (held out); one
    beacon at a surveyed point, heard by 12 fixed sensors; truth = 3D sensor-to-point distance."""
    sensors = {}
    for line in open(os.path.join(root, "cnf", "tetam.dev")):
        if line.startswith("Dongles:"):
            for mac, (pos, _, alias) in ast.literal_eval(line[len("Dongles:"):]).items():
                sensors[alias] = pos
    parts = {}
    for part, folder in (("fit", "set_1"), ("held-out", "set_2")):
        rows, truth = [], {}
        directory = os.path.join(root, "hst", folder)
        for name in sorted(os.listdir(directory)):
            if not name.endswith(".mbd"):
                continue
            alias, x, y, z = name[:-4].split("_")
            sx, sy, sz = sensors[alias]
            key = f"{folder}/{name[:-4]}"
            truth[key] = math.dist((float(x), float(y), float(z)), (sx, sy, sz))
            for line in open(os.path.join(directory, name)):
                fields = line.strip().split(",")
                if len(fields) >= 4 and -127 <= float(fields[3]) < 0:  # a few rows hold positive RSSI: corrupt
                    rows.append((float(fields[0]), key, float(fields[3])))
        parts[part] = (rows, truth)
    return parts


def herald(root):
    """Herald project's RSSI at known distances (phone to phone on a robot-driven cable car, 0-3.5 m):
    the January 2021 tests (10-25 cm steps) are fitted, the March 2021 tests (1 cm steps) held out."""
    directory = os.path.join(root, "reference-data", "rssi-raw-edison")
    parts = {"fit": ([], {}), "held-out": ([], {})}
    for name in sorted(os.listdir(directory)):
        if not (name.startswith("2021") and name.endswith(".csv")):
            continue
        part = "fit" if name < "20210200" else "held-out"
        rows, truth = parts[part]
        with open(os.path.join(directory, name)) as f:
            for record in csv.DictReader(f):
                try:
                    cm = float(record["distance"])
                    rssi = float(record["rssi"])
                    t = datetime.datetime.strptime(record["time"], "%Y-%m-%d %H:%M:%S").replace(tzinfo=datetime.timezone.utc).timestamp()
                except (ValueError, KeyError, TypeError):
                    continue
                if cm <= 0 or not -127 <= rssi < 0:
                    continue
                key = f"{name[:-4]}@{int(cm)}cm"
                truth[key] = cm / 100
                rows.append((t, key, rssi))
    return parts


def run(fieldloc, args, stdin_text):
    result = subprocess.run([fieldloc, "beacons", *args, "-"], input=stdin_text, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"fieldloc beacons {' '.join(args)}: {result.stderr.strip()}")
    return result.stdout


def calibrate(fieldloc, rows, truth):
    out = run(fieldloc, ["calibrate"], "".join(f"{truth[k]:.4f},{r:.0f}\n" for _, k, r in rows))
    values = {}
    for line in out.splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=")
            values[key.strip()] = float(value)
        elif line.startswith("#"):
            values["note"] = line[2:]
    return values


def judge(fieldloc, rows, truth, n, power):
    out = run(fieldloc, ["estimate", f"--path-loss-exponent={n}", f"--power-1m={power}"],
              "".join(f"{t:.3f},{k},{r:.0f}\n" for t, k, r in rows))
    ratios, confusion = [], {a: {b: 0 for b in CLASSES} for a in CLASSES}
    for line in out.splitlines():
        _, key, accuracy, prox, _ = line.split(",")
        d = truth[key]
        ratios.append(float(accuracy) / d)
        confusion[proximity(d)][prox if prox in CLASSES else "far"] += 1
    ratios.sort()
    factors = sorted(max(r, 1 / r) for r in ratios)
    q = lambda xs, p: xs[min(len(xs) - 1, int(p * len(xs)))]
    right = sum(confusion[c][c] for c in CLASSES)
    return {"count": len(ratios), "median_ratio": q(ratios, 0.5), "p90_ratio": q(ratios, 0.9), "p10_ratio": q(ratios, 0.1),
            "median_factor": q(factors, 0.5), "p90_factor": q(factors, 0.9), "right": right, "confusion": confusion}


def report(name, fieldloc, parts):
    fit_rows, fit_truth = parts["fit"]
    test_rows, test_truth = parts["held-out"]
    fitted = calibrate(fieldloc, fit_rows, fit_truth)
    own = calibrate(fieldloc, test_rows, test_truth)
    print(f"## {name}")
    print(f"fit part: {len(fit_rows)} adverts, {len(fit_truth)} positions; held-out: {len(test_rows)} adverts, {len(test_truth)} positions")
    print(f"fitted on the fit part: n = {fitted['beacon_path_loss_exponent']:.2f}, 1 m power = {fitted['beacon_power_1m']:.1f} dBm ({fitted['note']})")
    print(f"the held-out part's own fit: n = {own['beacon_path_loss_exponent']:.2f}, 1 m power = {own['beacon_power_1m']:.1f} dBm ({own['note']})")
    print()
    print("| model | n | 1 m power | estimates | est/truth median | est/truth p10-p90 | factor median | factor p90 | proximity right |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    results = []
    for label, n, p in (("before fitting (defaults)", 2.0, -59.0),
                        ("fitted on the fit part", fitted["beacon_path_loss_exponent"], fitted["beacon_power_1m"]),
                        ("held-out part's own fit (floor)", own["beacon_path_loss_exponent"], own["beacon_power_1m"])):
        r = judge(fieldloc, test_rows, test_truth, n, p)
        results.append((label, r))
        print(f"| {label} | {n:.2f} | {p:.1f} | {r['count']} | {r['median_ratio']:.2f} | {r['p10_ratio']:.2f}-{r['p90_ratio']:.2f} | "
              f"{r['median_factor']:.2f} | {r['p90_factor']:.2f} | {100 * r['right'] / max(r['count'], 1):.1f} % ({r['right']} of {r['count']}) |")
    print()
    for label, r in results:
        print(f"confusion, {label} (rows truth, columns estimate):")
        print("| truth \\ estimate | " + " | ".join(CLASSES) + " |")
        print("| --- | ---: | ---: | ---: |")
        for c in CLASSES:
            print(f"| {c} | " + " | ".join(str(r["confusion"][c][e]) for e in CLASSES) + " |")
        print()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, help="folder holding pabr/ and herald/ (see README.md)")
    parser.add_argument("--fieldloc", default=".build/debug/fieldloc")
    a = parser.parse_args()
    for name, loader, folder in (("Position-Annotated BLE RSSI Dataset (fingerprints)", pabr, "pabr"),
                                 ("Herald RSSI at known distances", herald, "herald")):
        root = os.path.join(a.data, folder)
        if os.path.isdir(root):
            report(name, a.fieldloc, loader(root))
        else:
            print(f"## {name}: skipped, {root} is absent")


if __name__ == "__main__":
    main()
