#!/usr/bin/env python3
"""Makes Sources/NMEA/Geoid/EGM96Grid.swift, the package's geoid: EGM96 on a 20' grid in decimetres.

Source: NGA's EGM96 geoid heights on a 15' grid (WW15MGH), as Debian's proj-data package installs it
(`apt-get install proj-data`: /usr/share/proj/egm96_15.gtx, a GTX file: six big-endian header words,
lat0 lon0 dlat dlon (float64, degrees) rows cols (int32), then rows x cols float32 metres, row 0 at
-90 degrees, column 0 at -180 degrees). EGM96 is a work of the US National Geospatial-Intelligence
Agency and NASA, in the public domain.

The grid: 541 rows (latitude -90 to 90) by 1080 columns (longitude -180 to 179 2/3), 20' apart. Each
node is the 15' grid evaluated there with the same bicubic (Catmull-Rom) interpolation the Swift code
uses (every third node is a 15' node, taken as is), rounded to a decimetre. Why 20': measured against
every 15' node, bicubic interpolation of this grid is within 0.58 m of EGM96 (30' gives 1.99 m, 60'
11 m; bilinear on 20' 2.25 m); `--measure` prints the table of docs/GEOID.md.

Encoding: per row, each value's difference from the plane through its left, upper and upper-left
neighbours (the first row: its left neighbour, the first column: its upper neighbour, the first value:
0), zigzag-mapped (0, -1, 1, -2, ... to 0, 1, 2, 3, ...) and Rice-coded with the row's parameter k
(the row starts with k in 4 bits; a value q*2^k + r is q one-bits, a zero-bit, then r in k bits),
bits most significant first, the whole stream in base64.

Usage: python3 Benchmarks/geoid/make_geoid.py [--gtx PATH] [--measure] > Sources/NMEA/Geoid/EGM96Grid.swift
Needs numpy.
"""
import argparse, base64, struct, sys
import numpy as np

ROWS, COLS, STEP = 541, 1080, 1.0 / 3.0


def read_gtx(path):
    data = open(path, 'rb').read()
    lat0, lon0, dlat, dlon, rows, cols = struct.unpack('>ddddii', data[:40])
    if (lat0, lon0, dlat, dlon, rows, cols) != (-90.0, -180.0, 0.25, 0.25, 721, 1440):
        sys.exit(f'{path}: not the EGM96 15-minute grid ({lat0} {lon0} {dlat} {dlon} {rows} {cols})')
    return np.frombuffer(data[40:], dtype='>f4').reshape(rows, cols).astype(np.float64)


def weights(t):
    """Catmull-Rom weights of the nodes -1, 0, 1, 2 for a fraction t in [0, 1)."""
    t2, t3 = t * t, t * t * t
    return ((-t3 + 2 * t2 - t) / 2, (3 * t3 - 5 * t2 + 2) / 2, (-3 * t3 + 4 * t2 + t) / 2, (t3 - t2) / 2)


def bicubic(grid, step, lat, lon):
    """The grid (rows from -90, columns from -180, `step` degrees apart) at lat, lon (arrays).
    Rows beyond a pole are the rows on the other side of it, half a turn of longitude away."""
    rows, cols = grid.shape
    y = (lat + 90) / step
    x = ((lon + 180) % 360) / step
    i = np.minimum(np.floor(y).astype(int), rows - 2)
    j = np.floor(x).astype(int)
    ty, tx = y - i, x - j
    wy, wx = weights(ty), weights(tx)
    out = 0.0
    for a in range(4):
        r = i - 1 + a
        c_shift = np.where((r < 0) | (r > rows - 1), cols // 2, 0)
        r = np.where(r < 0, -r, np.where(r > rows - 1, 2 * (rows - 1) - r, r))
        row = 0.0
        for b in range(4):
            row = row + wx[b] * grid[r, (j - 1 + b + c_shift) % cols]
        out = out + wy[a] * row
    return out


def make_grid(g15):
    lat = -90 + np.arange(ROWS) * STEP
    lon = -180 + np.arange(COLS) * STEP
    la, lo = np.meshgrid(lat, lon, indexing='ij')
    values = bicubic(g15, 0.25, la, lo)
    # Nodes on the 15' grid are taken as they are (the interpolation gives them to 1e-12 m anyway).
    values[::3, ::3] = g15[::4, ::4]
    return np.round(values * 10).astype(np.int64)


def encode(dm):
    bits = []
    for r in range(ROWS):
        row = dm[r]
        if r == 0:
            pred = np.concatenate(([0], row[:-1]))
        else:
            up = dm[r - 1]
            pred = np.concatenate(([up[0]], row[:-1] + up[1:] - up[:-1]))
        res = row - pred
        z = np.where(res >= 0, 2 * res, -2 * res - 1)
        k = min(range(16), key=lambda k: int(((z >> k) + 1 + k).sum()))
        bits.append(format(k, '04b'))
        for v in z:
            v = int(v)
            bits.append('1' * (v >> k) + '0' + (format(v & ((1 << k) - 1), f'0{k}b') if k else ''))
    s = ''.join(bits)
    s += '0' * (-len(s) % 8)
    return bytes(int(s[i:i + 8], 2) for i in range(0, len(s), 8))


def measure(g15):
    lat = -90 + 0.25 * np.arange(721)
    lon = -180 + 0.25 * np.arange(1440)
    la, lo = np.meshgrid(lat, lon, indexing='ij')
    print('| grid | interpolation | max error (m) | RMS (m) | values |')
    print('| --- | --- | --- | --- | --- |')
    for minutes in (60, 30, 20):
        step = minutes / 60
        n_lat, n_lon = int(round(180 / step)) + 1, int(round(360 / step))
        a, b = np.meshgrid(-90 + np.arange(n_lat) * step, -180 + np.arange(n_lon) * step, indexing='ij')
        coarse = np.round(bicubic(g15, 0.25, a, b) * 10) / 10
        for name in ('bilinear', 'bicubic'):
            if name == 'bicubic':
                est = bicubic(coarse, step, la, lo)
            else:
                y = (la + 90) / step; x = ((lo + 180) % 360) / step
                i = np.minimum(np.floor(y).astype(int), n_lat - 2); j = np.floor(x).astype(int)
                ty, tx = y - i, x - j
                est = (coarse[i, j % n_lon] * (1 - tx) * (1 - ty) + coarse[i, (j + 1) % n_lon] * tx * (1 - ty)
                       + coarse[i + 1, j % n_lon] * (1 - tx) * ty + coarse[i + 1, (j + 1) % n_lon] * tx * ty)
            e = est - g15
            print(f"| {minutes}' | {name} | {np.abs(e).max():.2f} | {np.sqrt((e ** 2).mean()):.3f} | {coarse.size} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--gtx', default='/usr/share/proj/egm96_15.gtx')
    ap.add_argument('--measure', action='store_true', help='print the error table instead of the Swift file')
    a = ap.parse_args()
    g15 = read_gtx(a.gtx)
    if a.measure:
        return measure(g15)
    data = base64.b64encode(encode(make_grid(g15))).decode()
    width = 1000
    lines = [data[i:i + width] for i in range(0, len(data), width)]
    out = sys.stdout
    out.write('// Generated by Benchmarks/geoid/make_geoid.py from NGA\'s EGM96 15\' grid (public domain); do not edit.\n')
    out.write('// docs/GEOID.md says how the grid is made and how close it is to EGM96.\n\n')
    out.write('extension EGM96 {\n')
    out.write(f'    /// The 20\' grid, {ROWS} x {COLS} decimetres, row-wise prediction residuals Rice-coded, base64.\n')
    out.write('    static let encoded: [StaticString] = [\n')
    for line in lines:
        out.write(f'        "{line}",\n')
    out.write('    ]\n}\n')


if __name__ == '__main__':
    main()
