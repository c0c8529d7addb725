"""HiGHS optima of the two linear programs shipped as nonsmooth models.

examples/control.qrc (minimum-fuel control of a double integrator) and
examples/newsvendor.qrc (a CVaR-constrained newsvendor) are written there
with abs and pos; here each is transcribed independently as the linear
program a modeller would write by hand (an epigraph variable per kink) and
solved by HiGHS through SciPy. Prints one JSON object: {"control": f*,
"newsvendor": f*}. nonsmooth/lp_test.go compares these with the optima
the qrc tests assert.
"""
import json

import numpy as np
from scipy.optimize import linprog


def control(N=30, dt=0.5, p0=5.0):
    # variables: p[0..N], v[0..N], u[0..N-1], a[0..N-1] with a >= |u|
    P, V, U, A = 0, N + 1, 2 * (N + 1), 2 * (N + 1) + N
    n = A + N
    c = np.zeros(n)
    c[A:] = 1
    eq, beq = [], []

    def row(d, b):
        r = np.zeros(n)
        for j, v in d.items():
            r[j] += v
        eq.append(r)
        beq.append(b)

    row({P: 1}, p0)
    row({V: 1}, 0)
    for k in range(N):
        row({P + k + 1: 1, P + k: -1, V + k: -dt}, 0)
        row({V + k + 1: 1, V + k: -1, U + k: -dt}, 0)
    row({P + N: 1}, 0)
    row({V + N: 1}, 0)
    ub, bub = [], []
    for k in range(N):
        for s in (1, -1):
            r = np.zeros(n)
            r[U + k], r[A + k] = s, -1
            ub.append(r)
            bub.append(0)
    bounds = [(None, None)] * (2 * (N + 1)) + [(-1, 1)] * N + [(0, None)] * N
    r = linprog(c, A_ub=np.array(ub), b_ub=bub, A_eq=np.array(eq), b_eq=beq, bounds=bounds, method="highs")
    assert r.status == 0, r.message
    return r.fun


def newsvendor(S=500, alpha=0.1, budget=-50.0):
    cost, price = np.array([4.0, 6, 3]), np.array([9.0, 10, 7])
    s = np.arange(1, S + 1)[:, None]
    k = np.arange(1, 4)[None, :]
    d = 60 + 40 * np.sin(12.9898 * s + 78.233 * k)
    # variables: q[3], eta, u[S][3] >= q - d (>= 0) in the objective's
    # loss, w[S][3] the same in the constraint's, z[S] >= loss - eta (>= 0)
    Q, ETA, U, W, Z = 0, 3, 4, 4 + 3 * S, 4 + 6 * S
    n = Z + S
    c = np.zeros(n)
    c[Q:Q + 3] = (cost - price)
    c[U:W] = np.tile(price, S) / S
    ub, bub = [], []
    for si in range(S):
        for kk in range(3):
            for base in (U, W):
                r = np.zeros(n)
                r[Q + kk], r[base + 3 * si + kk] = 1, -1
                ub.append(r)
                bub.append(d[si, kk])
        r = np.zeros(n)
        r[Q:Q + 3] = cost - price
        r[W + 3 * si:W + 3 * si + 3] = price
        r[ETA], r[Z + si] = -1, -1
        ub.append(r)
        bub.append(0)
    r = np.zeros(n)
    r[ETA] = 1
    r[Z:] = 1 / (alpha * S)
    ub.append(r)
    bub.append(budget)
    bounds = [(0, 200)] * 3 + [(-1000, 1000)] + [(0, None)] * (n - 4)
    res = linprog(c, A_ub=np.array(ub), b_ub=bub, bounds=bounds, method="highs")
    assert res.status == 0, res.message
    return res.fun


if __name__ == "__main__":
    print(json.dumps({"control": control(), "newsvendor": newsvendor()}))
