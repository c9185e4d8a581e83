#!/usr/bin/env python3
"""Heading accuracy of `fieldloc heading --samples` beside VQF, Fusion and Madgwick on real
IMU recordings with optical (Vicon) truth. See README.md beside this file.

    python3 Benchmarks/attitude-eval/eval.py --data DIR --fieldloc .build/debug/fieldloc

DIR holds the RepoIMU pendulum CSVs (`--fetch` clones them there). Nothing third-party is
committed: the data is fetched, the peers come from pip (vqf, imufusion, ahrs).
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scipy.spatial.transform import Rotation

REPO = "https://github.com/anonymous-sup-material/ring_supplementary_material"
SUBDIR = "data/repoIMU_dataset"
# RepoIMU was recorded at the Silesian University of Technology, Gliwice, Poland, in 2016.
PLACE = (50.29, 18.68, 2016.5)
# The magnetometer is in arbitrary units (|B| about 1.1): scaled to a plausible µT figure.
MAG_SCALE_UT = 50.0
G = 9.81


def fetch(data):
    os.makedirs(data, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["git", "clone", "--depth", "1", "--filter=blob:none", "--sparse", REPO, tmp], check=True)
        subprocess.run(["git", "-C", tmp, "sparse-checkout", "set", SUBDIR], check=True)
        for f in glob.glob(os.path.join(tmp, SUBDIR, "*.csv")):
            os.replace(f, os.path.join(data, os.path.basename(f)))


def load(path):
    """Uniform-rate samples: duplicate time stamps dropped, everything linearly interpolated
    (truth by normalised linear interpolation of sign-continuous quaternions) onto a grid at the
    median sample period, so every filter gets exactly the same samples."""
    d = np.genfromtxt(path, delimiter=";", skip_header=2)
    d = d[np.r_[True, np.diff(d[:, 0]) > 0]]
    d = d[np.isfinite(d).all(1) & (np.linalg.norm(d[:, 1:5], axis=1) > 0.5)]  # optical dropouts
    t = d[:, 0]
    q = d[:, 1:5].copy()
    for i in range(1, len(q)):
        if np.dot(q[i], q[i - 1]) < 0:
            q[i] = -q[i]
    ts = float(np.median(np.diff(t)))
    tu = np.arange(t[0], t[-1], ts)

    def interp(cols):
        return np.stack([np.interp(tu, t, cols[:, i]) for i in range(cols.shape[1])], 1)

    q = interp(q)
    q /= np.linalg.norm(q, axis=1)[:, None]
    return dict(t=tu - tu[0], ts=ts, truth=Rotation.from_quat(q[:, [1, 2, 3, 0]]),
                acc=interp(d[:, 5:8]), gyr=interp(d[:, 8:11]), mag=interp(d[:, 11:14]) * MAG_SCALE_UT)


def disturb(s):
    """The same recording with two synthetic magnetic disturbances added (documented in
    README.md): a fixed external field of 0.8 |B| from 30 % to 45 % of the trial, and a field
    attached to the unit of 0.6 |B| from 65 % to 75 %, each ramped in and out over 1 s."""
    t, n = s["t"], len(s["t"])
    b = np.median(np.linalg.norm(s["mag"], axis=1))
    T = t[-1]

    def window(a, z):
        return np.clip(np.minimum(t - a * T, z * T - t), 0, 1)

    up = s["truth"].apply(s["acc"]).mean(0)
    up /= np.linalg.norm(up)
    side = np.cross(up, [0.0, 0.0, 1.0] if abs(up[2]) < 0.9 else [1.0, 0.0, 0.0])
    side /= np.linalg.norm(side)
    external = s["truth"].inv().apply(np.tile(side * 0.8 * b, (n, 1))) * window(0.30, 0.45)[:, None]
    attached = np.array([0.6, -0.3, 0.74]) / np.linalg.norm([0.6, -0.3, 0.74]) * 0.6 * b * window(0.65, 0.75)[:, None]
    out = dict(s)
    out["mag"] = s["mag"] + external + attached
    return out


def heading_rmse(truth, est):
    """Heading error, the same for every filter: D(t) = truth(t) est(t)^-1 maps the filter's earth
    frame into the optical one. Its constant part (heading offset between magnetic north and the
    optical frame, and the optical frame's own tilt) is the rotation mean of D over the trial;
    the heading error is the twist about the filter's vertical of mean^-1 D(t)."""
    D = truth * est.inv()
    E = (D.mean().inv() * D).as_quat()
    twist = 2 * np.arctan2(E[:, 2], E[:, 3])
    err = np.degrees(np.angle(np.exp(1j * twist)))
    return float(np.sqrt(np.mean(err ** 2)))


def run_vqf(s):
    from vqf import VQF
    v = VQF(s["ts"])
    out = v.updateBatch(np.ascontiguousarray(s["gyr"]), np.ascontiguousarray(s["acc"]), np.ascontiguousarray(s["mag"]))
    return Rotation.from_quat(out["quat9D"][:, [1, 2, 3, 0]])


def run_fusion(s):
    import imufusion
    rate = 1 / s["ts"]
    settings = imufusion.AhrsSettings()
    settings.convention = imufusion.CONVENTION_NWU
    settings.gain = 0.5
    settings.gyroscope_range = 2000
    settings.acceleration_rejection = 10
    settings.magnetic_rejection = 10
    settings.rejection_timeout = int(5 * rate)
    settings.sample_rate = rate
    ahrs = imufusion.Ahrs()
    ahrs.set_settings(settings)
    bias_settings = imufusion.BiasSettings()
    bias_settings.sample_rate = rate
    bias = imufusion.Bias()
    bias.set_settings(bias_settings)
    q = np.empty((len(s["t"]), 4))
    gyr = np.degrees(s["gyr"])
    acc = s["acc"] / G
    for i in range(len(q)):
        ahrs.update(bias.update(gyr[i]), acc[i], s["mag"][i])
        q[i] = ahrs.get_quaternion()
    return Rotation.from_quat(q[:, [1, 2, 3, 0]])


MADGWICK_BETA = 0.041  # the MARG gain of Madgwick's report; a sweep of 0.01-0.1 on this set picks it too


def run_madgwick(s):
    from ahrs.filters import Madgwick
    f = Madgwick(gyr=s["gyr"], acc=s["acc"], mag=s["mag"], frequency=1 / s["ts"], beta=MADGWICK_BETA)
    return Rotation.from_quat(f.Q[:, [1, 2, 3, 0]])


def run_ours(s, fieldloc, place):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s.csv")
        acc = s["acc"] / G
        gyr = np.degrees(s["gyr"])
        table = np.column_stack([s["t"], acc, s["mag"], gyr])
        header = "t_s,acc_x_g,acc_y_g,acc_z_g,mag_x_uT,mag_y_uT,mag_z_uT,gyro_x_dps,gyro_y_dps,gyro_z_dps"
        np.savetxt(path, table, delimiter=",", header=header, comments="", fmt="%.7g")
        cmd = [fieldloc, "heading", "--samples", path]
        if place:
            cmd += ["--lat", str(PLACE[0]), "--lon", str(PLACE[1]), "--year", str(PLACE[2])]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.splitlines()
    names = out[0].split(",")
    cols = [names.index(c) for c in ("q_w", "q_x", "q_y", "q_z")]
    rows = [r.split(",") for r in out[1:]]
    q = np.array([[float(r[c]) if r[c] else np.nan for c in cols] for r in rows])
    # Rows before the filter has an attitude (none on this data) count as the identity.
    q[~np.isfinite(q).all(1)] = [1.0, 0.0, 0.0, 0.0]
    return Rotation.from_quat(q[:, [1, 2, 3, 0]])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True, help="folder of RepoIMU pendulum CSVs")
    p.add_argument("--fieldloc", help="path of the fieldloc binary (omit to run the peers only)")
    p.add_argument("--fetch", action="store_true", help="clone the CSVs into --data first")
    p.add_argument("--trials", action="store_true", help="print every trial, not only the means")
    p.add_argument("--prototype", default=None, metavar="K=V,...",
                   help="also run prototype.py (the filter's Python model) with these parameters")
    p.add_argument("--no-peers", action="store_true", help="skip VQF, Fusion and Madgwick")
    args = p.parse_args()
    if args.fetch:
        fetch(args.data)
    files = sorted(glob.glob(os.path.join(args.data, "*.csv")))
    if not files:
        sys.exit(f"no CSV files in {args.data}: run with --fetch, or see README.md")
    filters = []
    if args.fieldloc:
        filters += [("ours", lambda s: run_ours(s, args.fieldloc, False)),
                    ("ours+place", lambda s: run_ours(s, args.fieldloc, True))]
    if args.prototype is not None:
        import prototype
        kw = {k: float(v) for k, v in (kv.split("=") for kv in args.prototype.split(",") if kv)}

        def run_prototype(s, ref=None):
            return Rotation.from_quat(prototype.run(dict(s, gyr=s["gyr"], acc=s["acc"] / G), ref=ref, **kw)[:, [1, 2, 3, 0]])
        filters += [("proto", run_prototype)]
    if not args.no_peers:
        filters += [("Fusion", run_fusion), ("Madgwick", run_madgwick), ("VQF", run_vqf)]
    results = {}
    for f in files:
        name = os.path.basename(f)[:-4].replace("_Trial1_Segment_", "/")
        clean = load(f)
        for group, s in (("undisturbed", clean), ("disturbed", disturb(clean))):
            for label, run in filters:
                start = time.time()
                e = heading_rmse(s["truth"], run(s))
                results.setdefault(group, {}).setdefault(label, []).append(e)
                if args.trials:
                    print(f"{name:24} {group:12} {label:11} {e:7.2f} deg  ({time.time() - start:.1f} s)", flush=True)
    labels = [label for label, _ in filters]
    print("\nHeading RMSE, degrees (mean over %d trials; worst trial in brackets)\n" % len(files))
    print("| group | " + " | ".join(labels) + " |")
    print("|---|" + "---|" * len(labels))
    for group in ("undisturbed", "disturbed"):
        cells = ["%.2f (%.1f)" % (np.mean(results[group][l]), np.max(results[group][l])) for l in labels]
        print(f"| {group} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
