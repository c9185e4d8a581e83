// Per-sample cost of VQF (C++, double) and Fusion (C, float) on the samples of the benchmark
// "Attitude filter per sample" (Benchmarks/Benchmarks/HeadingBenchmarks): 100 Hz, 64 distinct
// samples (a slow turn with a bounce) repeated; each round is 1000 updates, the figure is the
// median (and fastest) round divided by 1000, as ordo-one/benchmark scales it. Built outside the
// repository against the peers' own sources (nothing of theirs is committed here):
//
//   VQF=$(python3 -c "import vqf,os; print(os.path.dirname(vqf.__file__))")/cpp   # pip install vqf
//   git clone --depth 1 https://github.com/xioTechnologies/Fusion fusion
//   gcc -O2 -c fusion/Fusion/*.c
//   g++ -O2 -std=c++17 -I fusion -I $VQF peers-cost.cpp $VQF/vqf.cpp Fusion*.o -o peers-cost
//   ./peers-cost 2000
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
#include "vqf.hpp"
extern "C" {
#include "Fusion/Fusion.h"
}
static double now() { return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
template <class F> static void report(const char* name, F&& round, int rounds) {
    std::vector<double> t;
    for (int r = 0; r < rounds; ++r) { double t0 = now(); round(); t.push_back((now() - t0) / 1000); }
    std::sort(t.begin(), t.end());
    std::printf("%-44s p50 %7.1f ns  p0 %7.1f ns\n", name, t[t.size() / 2], t[0]);
}
int main(int argc, char** argv) {
    int rounds = argc > 1 ? std::atoi(argv[1]) : 2000;
    volatile double sink = 0;
    // FRD samples (dps, g, uT) to the peers' x forward, y left, z up.
    auto sample = [](long k, double g[3], double a[3], double m[3]) {
        double s = double(k & 63) / 64;
        g[0] = 0.5 * s; g[1] = 0.3; g[2] = -(2 + s);
        a[0] = 0.05 * s; a[1] = 0.02; a[2] = 0.9 + 0.2 * s;
        m[0] = 23.3 - 2 * s; m[1] = -1.5 * s; m[2] = -43.0;
    };
    {
        VQF vqf(0.01);
        long k = 0;
        report("VQF 2.1.2 (C++, double), 9D update", [&] {
            for (int i = 0; i < 1000; ++i) {
                double g[3], a[3], m[3];
                sample(++k, g, a, m);
                for (double& v : g) v *= 3.14159265358979 / 180;
                for (double& v : a) v *= 9.80665;
                vqf.update(g, a, m);
            }
            double q[4]; vqf.getQuat9D(q); sink = sink + q[0];
        }, rounds);
    }
    {
        FusionAhrs ahrs; FusionAhrsInitialise(&ahrs);
        FusionAhrsSettings settings = {100.0f, FusionConventionNwu, 0.5f, 2000.0f, 10.0f, 10.0f, 5.0f};
        FusionAhrsSetSettings(&ahrs, &settings);
        FusionBias bias; FusionBiasInitialise(&bias);
        FusionBiasSettings biasSettings = fusionBiasDefaultSettings; biasSettings.sampleRate = 100.0f;
        FusionBiasSetSettings(&bias, &biasSettings);
        long k = 0;
        report("Fusion (C, float), bias + AHRS update", [&] {
            for (int i = 0; i < 1000; ++i) {
                double g[3], a[3], m[3];
                sample(++k, g, a, m);
                FusionVector gv = {{float(g[0]), float(g[1]), float(g[2])}}, av = {{float(a[0]), float(a[1]), float(a[2])}},
                             mv = {{float(m[0]), float(m[1]), float(m[2])}};
                FusionAhrsUpdate(&ahrs, FusionBiasUpdate(&bias, gv), av, mv);
            }
            sink = sink + FusionAhrsGetQuaternion(&ahrs).element.w;
        }, rounds);
    }
    return 0;
}
