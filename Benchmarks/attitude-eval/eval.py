#!/usr/bin/env python3
"""Heading accuracy of `fieldloc heading --samples` beside VQF, Fusion and Madgwick on real
IMU recordings with optical truth. See README.md beside this file.

    python3 Benchmarks/attitude-eval/eval.py --data DIR --fieldloc .build/debug/fieldloc
    python3 Benchmarks/attitude-eval/eval.py --set fiumargdb --data DIR2 --fieldloc .build/debug/fieldloc

DIR holds the RepoIMU pendulum CSVs, DIR2 the FIUMARGDB records (`--fetch` fetches either
there). Nothing third-party is committed: the data is fetched, the peers come from pip (vqf,
imufusion, ahrs).
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

# FIUMARGDB (Sonchan et al., Sensors 2023, 23(8), 3786): GPL-3.0 data, fetched, never committed.
FIU_REPO = "https://github.com/LABDSP/FIUMARGDB_marg_signals_and_reference_orientations"
FIU_ZIPS = ["REC_01-05.zip", "REC_06-10.zip", "REC_11-15.zip", "REC_16-20.zip", "REC_21-25.zip", "REC_26-30.zip"]
# Recorded at Florida International University, Miami, files of February 2023.
FIU_PLACE = (25.757, -80.374, 2023.1)
# The 3-Space sensor's axes: x towards location A from B, y up, z towards H from A. As numbers
# the samples and the optical quaternion form one consistent right-handed set (the gyroscope
# carries the accelerometer and magnetometer, and the truth's body rates match the gyroscope);
# C turns them into FRD (forward = z, right = -x, down = -y), a proper rotation.
FIU_TO_FRD = np.array([[0.0, 0.0, 1.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]])
# Location B (the steel bars) is about 55 cm west of A along the optical x axis: A at x = +0.31 m,
# B at x = -0.23 m.
FIU_B_X = 0.05


def fetch(data):
    os.makedirs(data, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["git", "clone", "--depth", "1", "--filter=blob:none", "--sparse", REPO, tmp], check=True)
        subprocess.run(["git", "-C", tmp, "sparse-checkout", "set", SUBDIR], check=True)
        for f in glob.glob(os.path.join(tmp, SUBDIR, "*.csv")):
            os.replace(f, os.path.join(data, os.path.basename(f)))


def fetch_fiu(data):
    """The six ZIPs of FIUMARGDB's 30 records (rec01-rec30.csv), unpacked into data."""
    import zipfile
    os.makedirs(data, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        if subprocess.run(["git", "clone", "--depth", "1", FIU_REPO, tmp]).returncode != 0:
            sys.exit(f"could not clone {FIU_REPO} into a temporary folder (no network?); records already in {data} are kept")
        missing = []
        for z in FIU_ZIPS:
            path = os.path.join(tmp, z)
            try:
                with zipfile.ZipFile(path) as archive:
                    for member in archive.namelist():
                        if member.lower().endswith(".csv"):
                            with open(os.path.join(data, os.path.basename(member)), "wb") as out:
                                out.write(archive.read(member))
            except (OSError, zipfile.BadZipFile) as e:
                missing.append(f"{z} ({e.__class__.__name__})")
        if missing:
            # A mirror that keeps no large files (or Git LFS pointers) gives some ZIPs empty or absent.
            print("FIUMARGDB: not unpacked: " + ", ".join(missing) + "; the table covers the other records",
                  file=sys.stderr)


def load_fiu(path, calibrate=True):
    """One FIUMARGDB record on a uniform grid at its median period (8 ms) like `load`; the body
    frame turned into FRD; the magnetometer from gauss to µT, its hard-iron offset (fitted on the
    samples away from B) taken off unless `calibrate` is false; `tracked` marks grid samples whose
    neighbouring optical rows both had every marker (isTracked), `at_b` those at location B."""
    d = np.genfromtxt(path, delimiter=",", skip_header=1)
    d = d[np.isfinite(d).all(1)]
    d = d[np.r_[True, np.diff(d[:, 0]) > 0]]
    t = d[:, 0] / 1000.0
    q = d[:, 4:8].copy()  # x, y, z, w
    for i in range(1, len(q)):
        if np.dot(q[i], q[i - 1]) < 0:
            q[i] = -q[i]
    ts = float(np.median(np.diff(t)))
    tu = np.arange(t[0], t[-1], ts)

    def interp(cols):
        return np.stack([np.interp(tu, t, cols[:, i]) for i in range(cols.shape[1])], 1)

    q = interp(q)
    q /= np.linalg.norm(q, axis=1)[:, None]
    C = FIU_TO_FRD
    truth = Rotation.from_quat(q) * Rotation.from_matrix(C.T)
    tracked = np.interp(tu, t, (d[:, 22] > 0.5).astype(float)) > 0.999
    at_b = np.interp(tu, t, d[:, 1]) < FIU_B_X
    mag = interp(d[:, 18:21]) @ C.T * 100.0
    if calibrate:
        mag -= hard_iron(mag[~at_b])
    return dict(t=tu - tu[0], ts=ts, truth=truth, acc=interp(d[:, 15:18]) @ C.T * G,
                gyr=interp(d[:, 12:15]) @ C.T, mag=mag, tracked=tracked, at_b=at_b)


def hard_iron(mag):
    """The centre of the sphere |m - o| = r fitted (linear least squares) to field samples taken
    while the unit turns through many attitudes in an undisturbed place: the calibration a unit
    gets before use. It needs no truth. On FIUMARGDB it is about (-10, -1, 0) µT in every record."""
    A = np.column_stack([2 * mag, np.ones(len(mag))])
    return np.linalg.lstsq(A, np.sum(mag ** 2, axis=1), rcond=None)[0][:3]


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


def errors(truth, est, ref=None):
    """Heading error, the same for every filter: D(t) = truth(t) est(t)^-1 maps the filter's earth
    frame into the optical one. Its constant part (heading offset between magnetic north and the
    optical frame, and the optical frame's own tilt) is the rotation mean of D over the trial (over
    the samples of `ref` when given); the heading error is the twist about the filter's vertical of
    mean^-1 D(t). Returns the heading error and the whole attitude error angle (degrees)."""
    D = truth * est.inv()
    M = (D if ref is None else D[np.flatnonzero(ref)]).mean()
    E = (M.inv() * D).as_quat()
    twist = 2 * np.arctan2(E[:, 2], E[:, 3])
    heading = np.degrees(np.angle(np.exp(1j * twist)))
    angle = np.degrees(2 * np.arccos(np.clip(np.abs(E[:, 3]), 0, 1)))
    return heading, angle


def rms(x):
    return float(np.sqrt(np.mean(np.square(x))))


def heading_rmse(truth, est):
    return rms(errors(truth, est)[0])


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


def run_fieldloc(s, fieldloc, place):
    """`fieldloc heading --samples` over the samples; `place` is (lat, lon, year) or None."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s.csv")
        acc = s["acc"] / G
        gyr = np.degrees(s["gyr"])
        table = np.column_stack([s["t"], acc, s["mag"], gyr])
        header = "t_s,acc_x_g,acc_y_g,acc_z_g,mag_x_uT,mag_y_uT,mag_z_uT,gyro_x_dps,gyro_y_dps,gyro_z_dps"
        np.savetxt(path, table, delimiter=",", header=header, comments="", fmt="%.7g")
        cmd = [fieldloc, "heading", "--samples", path]
        if place:
            cmd += [f"--lat={place[0]}", f"--lon={place[1]}", f"--year={place[2]}"]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.splitlines()
    names = out[0].split(",")
    cols = [names.index(c) for c in ("q_w", "q_x", "q_y", "q_z")]
    rows = [r.split(",") for r in out[1:]]
    q = np.array([[float(r[c]) if r[c] else np.nan for c in cols] for r in rows])
    # Rows before the filter has an attitude (none on this data) count as the identity.
    q[~np.isfinite(q).all(1)] = [1.0, 0.0, 0.0, 0.0]
    return Rotation.from_quat(q[:, [1, 2, 3, 0]])


def trials_repoimu(args):
    """Each RepoIMU segment as it is (undisturbed) and with the synthetic disturbances."""
    files = sorted(glob.glob(os.path.join(args.data, "*.csv")))
    if not files:
        sys.exit(f"no CSV files in {args.data}: run with --fetch, or see README.md")
    for f in files:
        name = os.path.basename(f)[:-4].replace("_Trial1_Segment_", "/")
        clean = load(f)
        for group, s in (("undisturbed", clean), ("disturbed", disturb(clean))):
            yield name, s, [(group, None)]


def trials_fiu(args):
    """Each FIUMARGDB record, scored on its tracked samples away from location B (undisturbed)
    and at B (the steel bars); the constant offset from the undisturbed samples."""
    files = sorted(glob.glob(os.path.join(args.data, "rec[0-9][0-9].csv")))
    if not files:
        sys.exit(f"no recNN.csv files in {args.data}: run with --set fiumargdb --fetch, or see README.md")
    for f in files:
        s = load_fiu(f, calibrate=not args.raw_mag)
        yield os.path.basename(f)[:-4], s, [("not at B", s["tracked"] & ~s["at_b"]), ("at B", s["tracked"] & s["at_b"])]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--set", choices=["repoimu", "fiumargdb"], default="repoimu", help="the data set (default repoimu)")
    p.add_argument("--data", required=True, help="folder of the set's CSVs")
    p.add_argument("--fieldloc", help="path of the fieldloc binary (omit to run the peers only)")
    p.add_argument("--fetch", action="store_true", help="fetch the CSVs into --data first")
    p.add_argument("--trials", action="store_true", help="print every trial, not only the means")
    p.add_argument("--prototype", default=None, metavar="K=V,...",
                   help="also run prototype.py (the filter's Python model) with these parameters")
    p.add_argument("--raw-mag", action="store_true", help="FIUMARGDB: keep the magnetometer's hard-iron offset")
    p.add_argument("--no-peers", action="store_true", help="skip VQF, Fusion and Madgwick")
    args = p.parse_args()
    fiu = args.set == "fiumargdb"
    if args.fetch:
        (fetch_fiu if fiu else fetch)(args.data)
    place = FIU_PLACE if fiu else PLACE
    filters = []
    if args.fieldloc:
        filters += [("ours", lambda s: run_fieldloc(s, args.fieldloc, None)),
                    ("ours+place", lambda s: run_fieldloc(s, args.fieldloc, place))]
    if args.prototype is not None:
        import prototype
        kw = {k: float(v) for k, v in (kv.split("=") for kv in args.prototype.split(",") if kv)}

        def run_prototype(s, ref=None):
            return Rotation.from_quat(prototype.run(dict(s, gyr=s["gyr"], acc=s["acc"] / G), ref=ref, **kw)[:, [1, 2, 3, 0]])
        filters += [("proto", run_prototype)]
    if not args.no_peers:
        filters += [("Fusion", run_fusion), ("Madgwick", run_madgwick), ("VQF", run_vqf)]
    results = {}
    groups = []
    names = set()
    for name, s, scored in (trials_fiu if fiu else trials_repoimu)(args):
        names.add(name)
        ref = scored[0][1]  # the offset comes from the first group's samples (all of them when None)
        for label, run in filters:
            start = time.time()
            heading, angle = errors(s["truth"], run(s), ref)
            for group, mask in scored:
                if group not in groups:
                    groups.append(group)
                h = heading if mask is None else heading[mask]
                a = angle if mask is None else angle[mask]
                e = (rms(h), rms(a))
                results.setdefault(group, {}).setdefault(label, []).append(e)
                if args.trials:
                    extra = f"  attitude {e[1]:7.2f} deg" if fiu else ""
                    print(f"{name:24} {group:12} {label:11} {e[0]:7.2f} deg{extra}  ({time.time() - start:.1f} s)", flush=True)
    labels = [label for label, _ in filters]
    tables = [(0, "Heading RMSE")] + ([(1, "Attitude error RMS (the set's published metric, after the same offset)")] if fiu else [])
    for k, title in tables:
        print("\n%s, degrees (mean over %d trials; worst trial in brackets)\n" % (title, len(names)))
        print("| group | " + " | ".join(labels) + " |")
        print("|---|" + "---|" * len(labels))
        for group in groups:
            cells = ["%.2f (%.1f)" % (np.mean([e[k] for e in results[group][l]]), np.max([e[k] for e in results[group][l]])) for l in labels]
            print(f"| {group} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
