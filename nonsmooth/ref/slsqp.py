#!/usr/bin/env python3
"""SciPy's SLSQP on the epigraph form of the nonsmooth problems of lv.py,
scored by the suite's rule, for the table beside qrc (QRC_NONSMOOTH_TABLE=1
go test ./nonsmooth -run TestTable -v; docs/testsuite.md).

A nonsmooth problem is not SLSQP's to solve as it stands; its epigraph form
is smooth: each maximum max_k g_k(x) in the objective becomes a variable t
with the constraints t >= g_k(x) (|g| is max(g, -g), pos(g) is max(0, g)),
and a sum of such terms gets one t per term (chained sums: one t per link).
The objective is then the smooth rest plus the t's with their coefficients.
Problems with no maximum (Rosenbrock; Steiner 2 and Brown 2, whose kinks are
in a norm and a power) are given to SLSQP as they are.

The linearly constrained problems keep their linear constraints and bounds
(SLSQP's bounds on x; the t's are free).

SLSQP runs with SciPy's default options (maxiter 100, ftol 1e-6) and
finite-difference gradients (2-point), from the published start with each t
at the value of its term there (a feasible start), the constraints of a
problem as one vector-valued 'ineq' constraint; a solve is stopped after
30 s of wall-clock time (between iterations), as qrc's is. The point's x is
scored: F(x) evaluated by lv.py, the rule |F - f*| <= max(1e-6, 1e-4 |f*|).

    python3 nonsmooth/ref/slsqp.py NAME[/N] ...   # JSON on stdout, one object per problem
"""
import json
import math
import os
import sys
import time
import warnings

import numpy as np
from scipy.optimize import minimize

import lv

TIME_LIMIT = 30.0
# The large problems run at n <= MAX_N only: at n = 1000 the epigraph form
# has about 2000 variables and 3000 constraints, and SLSQP's dense QP takes
# minutes per iteration on the shared 2-core VM. QRC_SLSQP_MAX_N overrides.
MAX_N = int(os.environ.get("QRC_SLSQP_MAX_N", "200"))


class Epigraph:
    """smooth(x) + outer(sum_j c_j sum(t_j)) with t_j >= each row of terms_j(x).

    terms is a list of (c, g) where g(x) returns an array of shape (k, m):
    m epigraph variables, each above k pieces (a 1-d array is one variable
    above all its entries)."""

    def __init__(self, smooth=None, terms=(), outer=None):
        self.smooth = smooth or (lambda x: 0.0)
        self.terms = list(terms)
        self.outer = outer

    def pieces(self, x):
        out = []
        for _, g in self.terms:
            v = np.asarray(g(x), dtype=float)
            if v.ndim == 1:
                v = v[:, None]
            out.append(v)
        return out


def abs_pieces(v):
    v = np.asarray(v, dtype=float)
    return np.stack([v, -v])


def minimax_epigraph(name):
    pieces, absolute = lv.PIECES[name]
    g = (lambda x: abs_pieces(pieces(x)).ravel()) if absolute else (lambda x: np.asarray(pieces(x), dtype=float))
    return Epigraph(terms=[(1.0, g)])


def general_epigraph(name):
    P = lv.PROBLEMS
    if name in ("rosenbrock", "steiner2", "wolfe"):  # wolfe: no epigraph form, SLSQP on f itself
        return Epigraph(smooth=P[name]["f"])
    if name in ("crescent", "cb2_ns", "cb3", "dem", "ql", "lq", "shor", "maxquad", "gill", "maxq"):
        # a maximum of smooth pieces: evaluate each piece by lv.py's own
        # definition through a one-hot trick would be fragile, so the pieces
        # are written out here from the same statements
        return Epigraph(terms=[(1.0, GENERAL_PIECES[name])])
    if name == "mifflin1":
        return Epigraph(smooth=lambda x: -x[0], terms=[(20.0, lambda x: np.array([x[0]**2 + x[1]**2 - 1, 0.0]))])
    if name == "mifflin2":
        return Epigraph(smooth=lambda x: -x[0] + 2 * (x[0]**2 + x[1]**2 - 1),
                        terms=[(1.75, lambda x: abs_pieces([x[0]**2 + x[1]**2 - 1]))])
    if name == "rosen_suzuki_ns":
        def rs(x):
            a, b, c, d = x
            q = a*a + b*b + c*c
            return np.array([0.0, q + d*d + a - b + c - d - 8, q + b*b + 2*d*d - a - d - 10, q + 2*a - b - d - 5])
        return Epigraph(smooth=lambda x: (x[0]**2 + x[1]**2 + 2 * x[2]**2 + x[3]**2 - 5 * (x[0] + x[1])
                                          - 21 * x[2] + 7 * x[3]),
                        terms=[(10.0, rs)])
    if name == "colville1":
        return Epigraph(smooth=lambda x: float(np.sum(lv.COL_D * x**3 + lv.COL_E * x) + x @ lv.COL_C @ x),
                        terms=[(50.0, lambda x: np.concatenate([[0.0], lv.COL_B - lv.COL_A @ x]))])
    if name == "hs78":
        return Epigraph(smooth=lambda x: x[0] * x[1] * x[2] * x[3] * x[4],
                        terms=[(10.0, lambda x: abs_pieces([np.sum(x**2) - 10, x[1] * x[2] - 5 * x[3] * x[4],
                                                           x[0]**3 + x[1]**3 + 1]))])
    if name == "el_attar":
        return Epigraph(terms=[(1.0, lambda x: abs_pieces(lv.evd61_residuals(x)))])
    if name == "maxl":
        return Epigraph(terms=[(1.0, lambda x: abs_pieces(x).ravel())])
    if name == "goffin":
        return Epigraph(smooth=lambda x: -float(np.sum(x)), terms=[(50.0, lambda x: x)])
    if name == "mxhilb":
        return Epigraph(terms=[(1.0, lambda x: abs_pieces(lv.hilbert_products(x)).ravel())])
    if name == "l1hilb":
        return Epigraph(terms=[(1.0, lambda x: abs_pieces(lv.hilbert_products(x)))])
    if name == "shell_dual":
        D, C, E, A, B = lv.COL_D, lv.COL_C, lv.COL_E, lv.COL_A, lv.COL_B

        def t(x):
            u, v = x[:5], x[5:]
            return -3 * D * u**2 - E - 2 * C @ u + A.T @ v
        return Epigraph(smooth=lambda x: float(x[:5] @ C @ x[:5] - B @ x[5:]),
                        terms=[(1.0, lambda x: abs_pieces([2 * np.sum(D * x[:5]**3)])),
                               (100.0, lambda x: np.stack([np.zeros(5), t(x)])),
                               (100.0, lambda x: np.stack([np.zeros(15), -x]))])
    raise KeyError(name)


GENERAL_PIECES = {
    "crescent": lambda x: np.array([x[0]**2 + (x[1] - 1)**2 + x[1] - 1, -x[0]**2 - (x[1] - 1)**2 + x[1] + 1]),
    "cb2_ns": lambda x: np.array([x[0]**2 + x[1]**4, (2 - x[0])**2 + (2 - x[1])**2, 2 * math.exp(-x[0] + x[1])]),
    "cb3": lambda x: np.array([x[0]**4 + x[1]**2, (2 - x[0])**2 + (2 - x[1])**2, 2 * math.exp(-x[0] + x[1])]),
    "dem": lambda x: np.array([5 * x[0] + x[1], -5 * x[0] + x[1], x[0]**2 + x[1]**2 + 4 * x[1]]),
    "ql": lambda x: (x[0]**2 + x[1]**2) + np.array([0, 10 * (-4 * x[0] - x[1] + 4), 10 * (-x[0] - 2 * x[1] + 6)]),
    "lq": lambda x: np.array([-x[0] - x[1], -x[0] - x[1] + (x[0]**2 + x[1]**2 - 1)]),
    "shor": lambda x: lv.SHOR_B * np.sum((np.asarray(x) - lv.SHOR_A)**2, axis=1),
    "maxquad": lambda x: np.array([x @ A @ x - b @ x for A, b in zip(*MAXQUAD)]),
    "gill": lambda x: np.array([gill_piece(x, k) for k in range(3)]),
    "maxq": lambda x: np.asarray(x)**2,
}
MAXQUAD = lv.maxquad_data()


def gill_piece(x, k):
    # the three smooth functions of Gill's problem, each lv.py's Gill with
    # the other two left out (lv.gill is their maximum)
    f1 = float(np.sum((x - 1)**2)) + 1e-3 * (float(np.sum(x**2)) - 0.25)**2
    if k == 0:
        return f1
    if k == 2:
        return sum(100 * (x[i] - x[i - 1]**2)**2 + (1 - x[i])**2 for i in range(1, 10))
    f2 = x[0]**2 + (x[1] - x[0]**2 - 1)**2
    for i in range(2, 31):
        t = (i - 1) / 29
        s1 = sum((j - 1) * x[j - 1] * t**(j - 2) for j in range(2, 11))
        s2 = sum(x[j - 1] * t**(j - 1) for j in range(1, 11))
        f2 += (s1 - s2**2 - 1)**2
    return f2


def links(x):
    return x[:-1], x[1:]


def large_epigraph(name):
    if name == "gmaxq":
        return Epigraph(terms=[(1.0, lambda x: x**2)])
    if name == "gmxhilb":
        return Epigraph(terms=[(1.0, lambda x: abs_pieces(lv.hilbert_products(x)).ravel())])
    if name == "chained_lq":
        return Epigraph(terms=[(1.0, lambda x: np.stack([-x[:-1] - x[1:], -x[:-1] - x[1:] + x[:-1]**2 + x[1:]**2 - 1]))])
    if name == "chained_cb3_1":
        return Epigraph(terms=[(1.0, lambda x: np.stack([x[:-1]**4 + x[1:]**2, (2 - x[:-1])**2 + (2 - x[1:])**2,
                                                        2 * np.exp(-x[:-1] + x[1:])]))])
    if name == "chained_cb3_2":
        return Epigraph(terms=[(1.0, lambda x: np.array([np.sum(x[:-1]**4 + x[1:]**2),
                                                        np.sum((2 - x[:-1])**2 + (2 - x[1:])**2),
                                                        np.sum(2 * np.exp(-x[:-1] + x[1:]))]))])
    if name == "active_faces":
        # max(g(-sum x), max_i g(x_i)), g(y) = ln(|y| + 1) increasing in |y|:
        # ln(1 + t) with t above every |x_i| and |sum x|
        return Epigraph(terms=[(1.0, lambda x: abs_pieces(np.concatenate([x, [np.sum(x)]])).ravel())],
                        outer=lambda s: math.log1p(s))
    if name == "brown2":
        return Epigraph(smooth=lv.LARGE["brown2"]["f"])
    if name == "chained_mifflin2":
        def y(x):
            return x[:-1]**2 + x[1:]**2 - 1
        return Epigraph(smooth=lambda x: float(np.sum(-x[:-1] + 2 * y(x))), terms=[(1.75, lambda x: abs_pieces(y(x)))])
    if name == "chained_crescent1":
        return Epigraph(terms=[(1.0, lambda x: np.array([float(np.sum(p)) for p in lv.crescent_pieces(x)]))])
    if name == "chained_crescent2":
        return Epigraph(terms=[(1.0, lambda x: np.stack(lv.crescent_pieces(x)))])
    raise KeyError(name)


class Stop(Exception):
    pass


def run(ident):
    name, _, size = ident.partition("/")
    if size and int(size) > MAX_N:
        return dict(name=ident, f=None, infeasibility=None, success=False, iterations=0,
                    message=f"not run: n > {MAX_N}", seconds=0.0)
    if size:
        p = lv.instance(name, int(size))
        epi = large_epigraph(name)
    else:
        p = lv.PROBLEMS[name]
        if p["set"] == "minimax":
            epi = minimax_epigraph(name)
        elif p["set"] == "lincon":
            epi = Epigraph(terms=[(1.0, lambda x: np.asarray(lv.LINCON[name]["pieces"](x), dtype=float))])
        else:
            epi = general_epigraph(name)
    x0 = np.array(p["x0"], dtype=float)
    n = len(x0)
    pieces0 = epi.pieces(x0)
    widths = [v.shape[1] for v in pieces0]
    t0 = np.concatenate([v.max(axis=0) for v in pieces0]) if widths else np.zeros(0)
    coef = np.concatenate([np.full(w, c) for (c, _), w in zip(epi.terms, widths)]) if widths else np.zeros(0)

    def objective(z):
        s = float(coef @ z[n:])
        return epi.smooth(z[:n]) + (epi.outer(s) if epi.outer else s)

    def constraints(z):
        x, t = z[:n], z[n:]
        out, at = [], 0
        for v, w in zip(epi.pieces(x), widths):
            out.append((t[at:at + w] - v).ravel())
            at += w
        return np.concatenate(out) if out else np.zeros(0)

    cons = [{"type": "ineq", "fun": constraints}] if widths else []
    bounds = None
    if name in lv.LINCON:
        lc = lv.LINCON[name]
        # the linear constraints, each as g(x) >= 0, and the bounds on x
        cons.append({"type": "ineq", "fun": lambda z: -np.array(lv.constraint_values(name, z[:n]))})
        fin = (lambda v: None if not math.isfinite(v) else float(v))
        bounds = [(fin(a), fin(b)) for a, b in zip(lc["lo"], lc["hi"])] + [(None, None)] * len(t0)
    began = time.perf_counter()

    def callback(z):
        if time.perf_counter() - began > TIME_LIMIT:
            raise Stop(z)

    z0 = np.concatenate([x0, t0])
    # the epigraph form at its start is the problem at x0
    f0 = p["f"](x0)
    if not abs(objective(z0) - f0) <= 1e-9 * max(1.0, abs(f0)):
        raise SystemExit(f"{ident}: the epigraph form at the start is {objective(z0)!r}, f(x0) is {f0!r}")
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            r = minimize(objective, z0, method="SLSQP", constraints=cons, bounds=bounds, callback=callback)
        z, message, nit = r.x, str(r.message), int(r.nit)
    except Stop as s:
        z, message, nit = s.args[0], "time limit", -1
    except (ValueError, ArithmeticError) as e:
        z, message, nit = z0, f"error: {e}", 0
    seconds = time.perf_counter() - began
    with np.errstate(all="ignore"):
        fx = p["f"](z[:n])
    fstar = p["fstar"]
    inf = lv.infeasibility(name, z[:n]) if not size else 0.0
    ok = (math.isfinite(fx) and not math.isnan(fstar) and inf <= 1e-6
          and abs(fx - fstar) <= max(1e-6, 1e-4 * abs(fstar)))
    return dict(name=ident, f=fx if math.isfinite(fx) else None, infeasibility=inf, success=bool(ok), iterations=nit,
                message=message, seconds=seconds)


def main(ids):
    json.dump([run(i) for i in ids], sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
