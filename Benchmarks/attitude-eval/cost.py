#!/usr/bin/env python3
"""Per-sample cost of the peer filters on the attitude benchmark's samples, in one run.

The samples are those of `swift package benchmark --filter 'Attitude.*'` (Benchmarks/Benchmarks/
HeadingBenchmarks): 100 Hz, a slow turn with a bounce, 64 distinct samples repeated. Each peer
runs N samples; the figure is the median over R rounds of (time of the round) / N:

- VQF (`vqf.VQF(0.01)`, 9D): `updateBatch` over the arrays, the C++ loop without Python per sample.
- Fusion (`imufusion.Ahrs` with a magnetometer, NWU): one `update` call per sample from Python,
  so the figure includes the binding's call overhead; an empty loop with the same argument
  handling is timed too, and the difference is given.
- Madgwick (`ahrs.filters.Madgwick`, MARG): the package's own loop over the arrays (NumPy per sample).

    python3 Benchmarks/attitude-eval/cost.py [--samples N] [--rounds R]
"""
import argparse
import statistics
import time

import numpy as np


def samples(n):
    k = np.arange(1, n + 1)
    s = (k % 64) / 64.0
    gyr = np.stack([0.5 * s, np.full(n, -0.3), 2 + s], axis=1)       # dps, FRD
    acc = np.stack([0.05 * s, np.full(n, -0.02), -0.9 - 0.2 * s], axis=1)  # g, FRD
    mag = np.stack([23.3 - 2 * s, 1.5 * s, np.full(n, 43.0)], axis=1)  # uT, FRD
    # FRD (specific force z = -1 g level) to the peers' x-forward, y-left, z-up axes.
    flip = np.array([1.0, -1.0, -1.0])
    return gyr * flip, acc * flip, mag * flip


def median_ns(run, n, rounds):
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter_ns()
        run()
        times.append((time.perf_counter_ns() - t0) / n)
    return statistics.median(times), min(times)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--samples", type=int, default=20000)
    p.add_argument("--rounds", type=int, default=15)
    args = p.parse_args()
    n = args.samples
    gyr_dps, acc_g, mag = samples(n)
    gyr = np.ascontiguousarray(np.radians(gyr_dps))
    acc = np.ascontiguousarray(acc_g * 9.80665)
    mag = np.ascontiguousarray(mag)
    rows = []

    import vqf
    def run_vqf():
        vqf.VQF(0.01).updateBatch(gyr, acc, mag)
    rows.append(("VQF (C++ via updateBatch, double)", *median_ns(run_vqf, n, args.rounds)))

    import imufusion
    g_list, a_list, m_list = list(gyr_dps), list(acc_g), list(mag)
    def run_fusion():
        # As eval.py runs it: NWU, gain 0.5, rejection 10 degrees, timeout 5 s, the bias estimator.
        settings = imufusion.AhrsSettings()
        settings.convention = imufusion.CONVENTION_NWU
        settings.gain = 0.5
        settings.gyroscope_range = 2000
        settings.acceleration_rejection = 10
        settings.magnetic_rejection = 10
        settings.rejection_timeout = 500
        settings.sample_rate = 100
        ahrs = imufusion.Ahrs()
        ahrs.set_settings(settings)
        bias_settings = imufusion.BiasSettings()
        bias_settings.sample_rate = 100
        bias = imufusion.Bias()
        bias.set_settings(bias_settings)
        for g, a, m in zip(g_list, a_list, m_list):
            ahrs.update(bias.update(g), a, m)
    def run_empty():
        def update(g, a, m):
            return None
        def identity(g):
            return g
        for g, a, m in zip(g_list, a_list, m_list):
            update(identity(g), a, m)
    fusion = median_ns(run_fusion, n, args.rounds)
    empty = median_ns(run_empty, n, args.rounds)
    rows.append(("Fusion with its bias estimator (C via two Python calls per sample, float)", *fusion))
    rows.append(("  Python loop and call alone", *empty))
    rows.append(("  Fusion less the loop", fusion[0] - empty[0], fusion[1] - empty[1]))

    from ahrs.filters import Madgwick
    m_n = min(n, 5000)
    def run_madgwick():
        Madgwick(gyr=gyr[:m_n], acc=acc[:m_n], mag=mag[:m_n], frequency=100.0, gain=0.041)
    rows.append(("Madgwick (ahrs, NumPy, MARG)", *median_ns(run_madgwick, m_n, max(3, args.rounds // 3))))

    print(f"{n} samples, median of {args.rounds} rounds")
    print("| filter | ns per sample, median | fastest round |")
    print("| --- | ---: | ---: |")
    for name, med, best in rows:
        print(f"| {name} | {med:,.0f} | {best:,.0f} |")


if __name__ == "__main__":
    main()
