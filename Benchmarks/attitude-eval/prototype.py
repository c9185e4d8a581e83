"""The first Python model of Sources/Heading/AttitudeFilter.swift (eval.py --prototype K=V,...),
kept for cheap experiments with the structure: strapdown x inclination x heading, gravity
low-passed in the strapdown frame, a learnt field reference, bias from the corrections. The
Swift filter has since gained what the simulated checks asked for (a weight for samples far from
the estimated gravity, faster recovery from large heading errors, GNSS centripetal compensation,
the north test before a new field is adopted) and other default time constants; the figures in
docs/ATTITUDE.md are the Swift filter's, through fieldloc. Frames: body as the sensor gives it,
earth NED; inputs rad/s, specific force (any unit), field (µT)."""
import math

import numpy as np


def qmul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw])


def qrot(q, v):
    w, x, y, z = q
    return np.array([(1 - 2 * (y * y + z * z)) * v[0] + 2 * (x * y - w * z) * v[1] + 2 * (x * z + w * y) * v[2],
                     2 * (x * y + w * z) * v[0] + (1 - 2 * (x * x + z * z)) * v[1] + 2 * (y * z - w * x) * v[2],
                     2 * (x * z - w * y) * v[0] + 2 * (y * z + w * x) * v[1] + (1 - 2 * (x * x + y * y)) * v[2]])


def qexp(w, dt):
    h = 0.5 * dt * w
    t = h @ h
    c = 1 - t / 2 + t * t / 24
    s = 1 - t / 6 + t * t / 120
    return np.array([c, s * h[0], s * h[1], s * h[2]])


class Filter:
    def __init__(self, tau_acc=3.0, tau_mag=10.0, tau_bias=60.0, ref=None, **kw):
        self.tau_acc, self.tau_mag, self.tau_bias = tau_acc, tau_mag, tau_bias
        self.p = dict(rest_gyr=2.0, rest_acc=0.04, rest_mag=1.0, rest_time=1.5, tau_rest=3.0, bias_max=5.0,
                      norm_tol=0.1, dip_tol=10.0, tau_ref=20.0, new_time=20.0, new_first=5.0, new_rate=20.0,
                      bias_mag=1.0)
        self.p.update(kw)
        self.ref = ref  # (norm, dip deg)
        self.init = False
        self.b = np.zeros(3)

    def start(self, a, m):
        self.qg = np.array([1.0, 0, 0, 0])
        v = -a / np.linalg.norm(a)  # down in body
        # qa: rotation taking body down to earth down (shortest arc)
        self.qa = self.arc(-(-v), np.array([0, 0, 1.0]))
        self.qa = self.arc(v, np.array([0, 0, 1.0]))
        self.alp = qrot(self.qa, a) * 0 + qrot(np.array([1.0, 0, 0, 0]), a)
        mE = qrot(self.qa, m)
        self.delta = -math.atan2(mE[1], mE[0])
        self.t_acc = 0.0
        self.t_mag = 0.0
        n = np.linalg.norm(m)
        dip = math.degrees(math.asin(max(-1, min(1, mE[2] / n))))
        if self.ref is None or (abs(n - self.ref[0]) < self.p["norm_tol"] * self.ref[0] and abs(dip - self.ref[1]) < self.p["dip_tol"]):
            self.ref_norm, self.ref_dip, self.ref_ok, self.first = n, dip, True, False
        else:
            self.ref_norm, self.ref_dip, self.ref_ok, self.first = self.ref[0], self.ref[1], True, True
        self.cand_norm, self.cand_dip, self.cand_t = n, dip, 0.0
        self.gyr_lp = np.zeros(3)
        self.acc_lp = a.copy()
        self.mag_anchor = m / n
        self.rest_t = 0.0
        self.init = True

    @staticmethod
    def arc(u, v):
        """Quaternion rotating unit u onto unit v."""
        c = np.cross(u, v)
        q = np.array([1 + u @ v, c[0], c[1], c[2]])
        n = np.linalg.norm(q)
        if n < 1e-9:
            return np.array([0.0, 1, 0, 0])
        return q / n

    def quat(self):
        h = self.delta / 2
        qz = np.array([math.cos(h), 0, 0, math.sin(h)])
        return qmul(qz, qmul(self.qa, self.qg))

    def update(self, g, a, m, dt):
        p = self.p
        if not self.init:
            self.start(a, m)
            return self.quat()
        if dt <= 0:
            return self.quat()
        # rest detection and bias at rest
        kr = dt / (0.5 + dt)
        self.gyr_lp += kr * (g - self.gyr_lp)
        self.acc_lp += kr * (a - self.acc_lp)
        an = np.linalg.norm(a)
        mn = np.linalg.norm(m)
        still = np.all(np.abs(g - self.b) < math.radians(p["rest_gyr"])) and np.linalg.norm(a - self.acc_lp) < p["rest_acc"] * an
        if still and mn > 0:
            mh = m / mn
            if math.degrees(np.linalg.norm(mh - self.mag_anchor)) > p["rest_mag"] and self.rest_t > 0:
                still = False
        if still:
            if self.rest_t == 0:
                self.mag_anchor = m / mn
            self.rest_t += dt
            if self.rest_t >= p["rest_time"]:
                self.b += dt / (p["tau_rest"] + dt) * (self.gyr_lp - self.b)
        else:
            self.rest_t = 0.0
            self.mag_anchor = m / mn if mn > 0 else self.mag_anchor
        w = g - self.b
        self.qg = qmul(self.qg, qexp(w, dt))
        self.qg /= np.linalg.norm(self.qg)
        # gravity: low-pass in the strapdown frame
        self.t_acc += dt
        ka = max(dt / (self.tau_acc + dt), dt / self.t_acc)
        aI = qrot(self.qg, a)
        self.alp += ka * (aI - self.alp)
        v = qrot(self.qa, self.alp)
        vn = np.linalg.norm(v)
        if vn > 0:
            v /= vn
            qc = self.arc(-v, np.array([0, 0, 1.0]))  # -specific force is down
            self.qa = qmul(qc, self.qa)
            self.qa /= np.linalg.norm(self.qa)
            # bias in motion: the correction is the drift the gyro made (earth frame)
            if self.rest_t < p["rest_time"]:
                cE = 2 * qc[1:] / dt
                R = qmul(self.qa, self.qg)
                cB = qrot(R * np.array([1, -1, -1, -1]), cE)
                self.b -= dt / (self.tau_bias + dt) * cB
        # field
        if mn > 0:
            R = qmul(self.qa, self.qg)
            mE = qrot(R, m)
            dip = math.degrees(math.asin(max(-1, min(1, mE[2] / mn))))
            ok = abs(mn - self.ref_norm) < p["norm_tol"] * self.ref_norm and abs(dip - self.ref_dip) < p["dip_tol"]
            if ok:
                kref = dt / (p["tau_ref"] + dt)
                self.ref_norm += kref * (mn - self.ref_norm)
                self.ref_dip += kref * (dip - self.ref_dip)
                self.first = False
                self.cand_t = 0
                self.t_mag += dt
                km = max(dt / (self.tau_mag + dt), dt / self.t_mag)
                hx = mE[0] * math.cos(self.delta) - mE[1] * math.sin(self.delta)
                hy = mE[0] * math.sin(self.delta) + mE[1] * math.cos(self.delta)
                e = math.atan2(hy, hx)
                self.delta -= km * e
                if self.rest_t < p["rest_time"] and p["bias_mag"] > 0:
                    cE = np.array([0, 0, -km * e / dt])
                    cB = qrot(R * np.array([1, -1, -1, -1]), cE)
                    self.b -= p["bias_mag"] * dt / (self.tau_bias + dt) * cB
            else:
                kc = dt / (1.0 + dt)
                if abs(mn - self.cand_norm) < p["norm_tol"] * self.cand_norm and abs(dip - self.cand_dip) < p["dip_tol"]:
                    if self.first or np.linalg.norm(w) > math.radians(p["new_rate"]):
                        self.cand_t += dt
                else:
                    self.cand_t = 0
                self.cand_norm += kc * (mn - self.cand_norm)
                self.cand_dip += kc * (dip - self.cand_dip)
                if self.cand_t > (p["new_first"] if self.first else p["new_time"]):
                    self.ref_norm, self.ref_dip = self.cand_norm, self.cand_dip
                    self.first = False
                    self.t_mag = 0.0
        lim = math.radians(p["bias_max"])
        self.b = np.clip(self.b, -lim, lim)
        return self.quat()


def run(s, ref=None, **kw):
    f = Filter(ref=ref, **kw)
    out = np.empty((len(s["t"]), 4))
    prev = None
    for i in range(len(out)):
        t = s["t"][i]
        dt = 0.0 if prev is None else t - prev
        prev = t
        out[i] = f.update(s["gyr"][i], s["acc"][i], s["mag"][i], dt)
    return out
