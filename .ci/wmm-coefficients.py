#!/usr/bin/env python3
"""Regenerates Sources/Heading/WMM2025Coefficients.swift from Sources/Heading/WMM2025.COF."""
import pathlib
root = pathlib.Path(__file__).resolve().parent.parent
cof = (root / "Sources/Heading/WMM2025.COF").read_text().splitlines()
rows = []
for line in cof[1:]:
    parts = line.split()
    if len(parts) < 6 or parts[0].startswith("9999"):
        break
    rows.append(parts[:6])
out = [
    "// Generated from WMM2025.COF (beside this file) by .ci/wmm-coefficients.py; do not edit.",
    "// A test re-parses the .COF file and requires this table to equal it.",
    "",
    "extension WorldMagneticModel {",
    "    /// WMM2025 (NOAA NCEI / BGS, public domain): epoch 2025.0, degree and order 12.",
    "    /// Rows in file order: (n, m, g, h, gdot, hdot) in nT and nT/year.",
    "    static let wmm2025Rows: [(Int, Int, Double, Double, Double, Double)] = [",
]
out += ["        (%s, %s, %s, %s, %s, %s)," % tuple(r) for r in rows]
out += ["    ]", "}"]
(root / "Sources/Heading/WMM2025Coefficients.swift").write_text("\n".join(out) + "\n")
print(f"{len(rows)} rows")
