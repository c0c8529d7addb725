#!/usr/bin/env python3
"""An independent numpy reference for the nonsmooth test sets of nonsmooth/
(docs/testsuite.md), written from the published statements apart from the
.qrc models:

- the unconstrained minimax problems of Lukšan & Vlček, "Test problems for
  nonsmooth unconstrained and linearly constrained optimization", report
  V-798, ICS AS CR, Prague, 2000, section 2 (set "minimax"): F = max_k f_k or
  max_k |f_k|;
- the general unconstrained nonsmooth problems of the same report, section 3
  (set "general");
- the linearly constrained minimax problems of the same report, section 4
  (set "lincon"; those written so far), with their linear constraints and
  bounds;
- the ten large-scale problems of Haarala, Miettinen & Mäkelä, "New limited
  memory bundle method for large-scale nonsmooth optimization", Optimization
  Methods and Software 19(6), 2004 (set "large"), at any even n.

Each problem gives its start x0, f and f* (the report's table; for the
large set, Karmitsa's report B 4/2007 and the closed forms there).

    python3 nonsmooth/ref/lv.py values > nonsmooth/testdata/reference.json
    python3 nonsmooth/ref/lv.py check     # f(x0) finite, f* below f(x0)

The values file holds, for every problem and size, f at the start and at
two points near it (drawn with a fixed seed), each point both in the
problem's own variable order (x) and in the layout of its .qrc model (q):
the large models with an alternating start keep the odd and the even
variables in two vectors (q = x_1, x_3, ..., x_2, x_4, ...), and the
generalization of MAXQ is written in the shift u = x - x0 (q = u).
"""
import json
import math
import sys

import numpy as np

PROBLEMS = {}  # name -> dict(set, n, x0, f, fstar, layout)


def problem(name, set_, x0, fstar, layout="natural"):
    def register(f):
        PROBLEMS[name] = dict(name=name, set=set_, x0=np.array(x0, dtype=float), f=f, fstar=fstar, layout=layout)
        return f
    return register


def mx(v):
    return float(np.max(np.asarray(v, dtype=float)))


def mxabs(v):
    return float(np.max(np.abs(np.asarray(v, dtype=float))))


# ---------------------------------------------------------------- section 2: minimax

PIECES = {}  # minimax name -> (pieces(x), absolute)


def minimax(name, x0, fstar, absolute=False):
    """A minimax problem of section 2: pieces(x) returns the f_k, and
    F = max_k f_k, or max_k |f_k| when absolute."""
    def register(pieces):
        def f(x):
            v = np.asarray(pieces(x), dtype=float)
            return float(np.max(np.abs(v) if absolute else v))
        PIECES[name] = (pieces, absolute)
        problem(name, "minimax", x0, fstar)(f)
        return pieces
    return register


@minimax("cb2", [2, 2], 1.9522245)
def _(x):
    return ([x[0]**2 + x[1]**4, (2 - x[0])**2 + (2 - x[1])**2, 2 * math.exp(x[1] - x[0])])


@minimax("wf", [3, 1], 0.0)
def _(x):
    r = 10 * x[0] / (x[0] + 0.1)
    s = 2 * x[1]**2
    return ([0.5 * (x[0] + r + s), 0.5 * (-x[0] + r + s), 0.5 * (x[0] - r + s)])


@minimax("spiral", [1.41831, -4.79462], 0.0)
def _(x):
    r2 = x[0]**2 + x[1]**2
    r = math.sqrt(r2)
    return ([(x[0] - r * math.cos(r))**2 + 0.005 * r2, (x[1] - r * math.sin(r))**2 + 0.005 * r2])


@minimax("evd52", [1, 1, 1], 3.5997193)
def _(x):
    a, b, c = x
    return ([a*a + b*b + c*c - 1, a*a + b*b + (c - 2)**2, a + b + c - 1, a + b - c + 1,
               2 * (a**3 + 3 * b*b + (5 * c - a + 1)**2), a*a - 9 * c])


def rosen_suzuki_pieces(a, b, c, d):
    f1 = a*a + b*b + 2*c*c + d*d - 5*a - 5*b - 21*c + 7*d
    return [f1,
            f1 + 10 * (a*a + b*b + c*c + d*d + a - b + c - d - 8),
            f1 + 10 * (a*a + 2*b*b + c*c + 2*d*d - a - d - 10),
            f1 + 10 * (a*a + b*b + c*c + 2*a - b - d - 5)]


@minimax("rosen_suzuki", [0, 0, 0, 0], -44.0)
def _(x):
    return (rosen_suzuki_pieces(*x))


@minimax("polak6", [0, 0, 0, 0], -44.0)
def _(x):
    y1 = x[0] - (x[3] + 1)**4
    y2 = x[1] - y1**4
    return (rosen_suzuki_pieces(y1, y2, x[2], x[3]))


@minimax("pbc3", [1, 1, 1], 0.42021427e-2, absolute=True)
def _(x):
    t = 10 * np.arange(21) / 20
    y = 3 / 20 * np.exp(-t) + np.exp(-5 * t) / 52 - np.exp(-2 * t) * (3 * np.sin(2 * t) + 11 * np.cos(2 * t)) / 65
    return (x[2] / x[1] * np.exp(-x[0] * t) * np.sin(x[1] * t) - y)


BARD_Y = [0.14, 0.18, 0.22, 0.25, 0.29, 0.32, 0.35, 0.39, 0.37, 0.58, 0.73, 0.96, 1.34, 2.10, 4.39]


@minimax("bard", [1, 1, 1], 0.50816327e-1, absolute=True)
def _(x):
    i = np.arange(1, 16)
    return (np.array(BARD_Y) - x[0] - i / ((16 - i) * x[1] + np.minimum(i, 16 - i) * x[2]))


KO_Y = [0.1957, 0.1947, 0.1735, 0.1600, 0.0844, 0.0627, 0.0456, 0.0342, 0.0323, 0.0235, 0.0246]
KO_U = [4, 2, 1, 0.5, 0.25, 0.167, 0.125, 0.1, 0.0833, 0.0714, 0.0625]


@minimax("kowalik_osborne", [0.25, 0.39, 0.415, 0.39], 0.80843684e-2, absolute=True)
def _(x):
    u = np.array(KO_U)
    return (np.array(KO_Y) - x[0] * u * (u + x[1]) / (u * (u + x[2]) + x[3]))


@minimax("davidon2", [25, 5, -5, -1], 115.70644, absolute=True)
def _(x):
    t = 0.2 * np.arange(1, 21)
    return ((x[0] + x[1] * t - np.exp(t))**2 + (x[2] + x[3] * np.sin(t) - np.cos(t))**2)


@minimax("oet5", [1, 1, 1, 1], 0.26359735e-2, absolute=True)
def _(x):
    t = 0.25 + 0.75 * np.arange(21) / 20
    return (x[3] - (x[0] * t**2 + x[1] * t + x[2])**2 - np.sqrt(t))


@minimax("oet6", [1, 1, -3, -1], 0.20160753e-2, absolute=True)
def _(x):
    t = -0.5 + np.arange(21) / 20
    return (x[0] * np.exp(x[2] * t) + x[1] * np.exp(x[3] * t) - 1 / (1 + t))


GAMMA_T = [1.0, 1.01, 1.02, 1.03, 1.05, 1.075, 1.1, 1.125, 1.15, 1.2, 1.25, 1.3, 1.35, 1.4, 1.5, 1.6, 1.7, 1.8,
           1.9, 2.0, 2.1, 2.2, 2.3, 2.5, 2.75, 3.0, 3.25, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5, 7.0, 7.5, 8.0, 8.5,
           9.0, 10.0, 11.0, 12.0, 13.0, 15.0, 17.5, 20.0, 22.5, 25.0, 30.0, 35.0, 40.0, 50.0, 60.0, 70.0, 80.0,
           100.0, 150.0, 200.0, 300.0, 500.0, 1e5]
GAMMA_Y = [0.97386702052733792831, 0.97390711665677071911, 0.97394794566286525039, 0.97398947529386626621,
           0.97407451325974368215, 0.97418422166965892644, 0.97429732692565188272, 0.97441344289222034304,
           0.97453221704823108216, 0.97477647977277153145, 0.97502785781178233026, 0.97528446418205610067,
           0.97554472005909873148, 0.97580730389916439626, 0.97633521198091785788, 0.97686134356195586299,
           0.97738094095418268249, 0.97789073928751194169, 0.97838854811088140808, 0.97887295363155439576,
           0.97934310478576951385, 0.97979855827226762515, 0.98023916551033862691, 0.98107624468416045728,
           0.98204290774765289406, 0.98292719363632655668, 0.98373656564197279264, 0.98447846610682328991,
           0.98578713114264981186, 0.98690124654380846379, 0.98785879054855173380, 0.98868928566806726978,
           0.98941568049711884384, 0.99005592865089067038, 0.99062420259214811899, 0.99113180018738487730,
           0.99158781685339306121, 0.99199964493176098231, 0.99237334707422899195, 0.99302559755582945576,
           0.99357562712206729735, 0.99404560031581354300, 0.99445173790980305195, 0.99511816085114882367,
           0.99575584307408838284, 0.99624640327264396775, 0.99663543022201287399, 0.99695146031888813172,
           0.99743367936799001685, 0.99778424120023198554, 0.99805056960591223604, 0.99842841443786596919,
           0.99868358857261655169, 0.99886748198687248566, 0.99900629944600342584, 0.99920194660435455419,
           0.99946519560889341627, 0.99959785208794891934, 0.99973120214935885075, 0.99983838442420395745,
           0.999999189398046846077]


@minimax("gamma", [1, 1, 10, 1], 0.12041887e-6, absolute=True)
def _(x):
    t, y = np.array(GAMMA_T), np.array(GAMMA_Y)
    z = np.abs((t + x[1] + 1 / (x[2] * t + x[3])) / ((t + 1) * y))
    return (x[0] * np.exp((t + 0.5) * np.log(z)) - 1)


@minimax("exp", [0.5, 0, 0, 0, 0], 0.12237125e-3, absolute=True)
def _(x):
    t = 0.1 * np.arange(21) - 1
    return ((x[0] + t * x[1]) / (1 + t * (x[2] + t * (x[3] + t * x[4]))) - np.exp(t))


@minimax("pbc1", [0, -1, 10, 1, 10], 0.22340496e-1, absolute=True)
def _(x):
    t = -1 + 2 * np.arange(30) / 29
    y = np.sqrt((8 * t - 1)**2 + 1) * np.arctan(8 * t) / (8 * t)
    return ((x[0] + t * (x[1] + t * x[2])) / (1 + t * (x[3] + t * x[4])) - y)


def evd61_data():
    t = 0.1 * np.arange(51)
    y = (0.5 * np.exp(-t) - np.exp(-2 * t) + 0.5 * np.exp(-3 * t) + 1.5 * np.exp(-1.5 * t) * np.sin(7 * t)
         + np.exp(-2.5 * t) * np.sin(5 * t))
    return t, y


def evd61_residuals(x):
    t, y = evd61_data()
    return x[0] * np.exp(-x[1] * t) * np.cos(x[2] * t + x[3]) + x[4] * np.exp(-x[5] * t) - y


@minimax("evd61", [2, 2, 7, 0, -2, 1], 0.34904926e-1, absolute=True)
def _(x):
    return (evd61_residuals(x))


TRANSFORMER_Y = [0.5, 0.6, 0.7, 0.77, 0.9, 1.0, 1.1, 1.23, 1.3, 1.4, 1.5]


@minimax("transformer", [0.8, 1.5, 1.2, 3.0, 0.8, 6.0], 0.19729063)
def _(x):
    # complex arithmetic, as the statement is written: three sections of a
    # transmission line, then the reflection coefficient (B - A) / (B + A)
    vals = []
    for yk in TRANSFORMER_Y:
        beta = 0.5 * math.pi * yk
        A, B = 1 + 0j, 10 + 0j
        for sec in (2, 1, 0):
            a, b = x[2 * sec], x[2 * sec + 1]
            c, s = math.cos(beta * a), math.sin(beta * a)
            A, B = 1j * (s / b) * B + c * A, c * B + 1j * s * b * A
        vals.append(abs(1 - 2 * A / (B + A)))
    return (vals)


def filter_y():
    y = np.zeros(41)
    for i in range(1, 42):
        if i <= 6:
            y[i - 1] = 0.01 * (i - 1)
        elif i <= 20:
            y[i - 1] = 0.03 * (i - 7) + 0.07
        elif i == 21:
            y[i - 1] = 0.5
        elif i <= 35:
            y[i - 1] = 0.03 * (i - 22) + 0.54
        else:
            y[i - 1] = 0.01 * (i - 36) + 0.95
    return y


@minimax("filter", [0, 1, 0, -0.15, 0, -0.68, 0, -0.72, 0.37], 0.61852848e-2, absolute=True)
def _(x):
    y = filter_y()
    t, b = np.cos(math.pi * y), np.sin(math.pi * y)

    def q(u, v):
        return (u + (1 + v) * t)**2 + ((1 - v) * b)**2
    z = x[8] * np.sqrt(q(x[0], x[1]) / q(x[2], x[3])) * np.sqrt(q(x[4], x[5]) / q(x[6], x[7]))
    return (z - np.abs(1 - 2 * y))


def wong1_pieces(x):
    x1, x2, x3, x4, x5, x6, x7 = x
    f = ((x1 - 10)**2 + 5 * (x2 - 12)**2 + x3**4 + 3 * (x4 - 11)**2 + 10 * x5**6 + 7 * x6**2 + x7**4
         - 4 * x6 * x7 - 10 * x6 - 8 * x7)
    return [f,
            f + 10 * (2 * x1**2 + 3 * x2**4 + x3 + 4 * x4**2 + 5 * x5 - 127),
            f + 10 * (7 * x1 + 3 * x2 + 10 * x3**2 + x4 - x5 - 282),
            f + 10 * (23 * x1 + x2**2 + 6 * x6**2 - 8 * x7 - 196),
            f + 10 * (4 * x1**2 + x2**2 - 3 * x1 * x2 + 2 * x3**2 + 5 * x6 - 11 * x7)]


@minimax("wong1", [1, 2, 0, 4, 0, 1, 1], 680.63006)
def _(x):
    return (wong1_pieces(x))


def wong2_base(x):
    return (x[0]**2 + x[1]**2 + x[0] * x[1] - 14 * x[0] - 16 * x[1] + (x[2] - 10)**2 + 4 * (x[3] - 5)**2
            + (x[4] - 3)**2 + 2 * (x[5] - 1)**2 + 5 * x[6]**2 + 7 * (x[7] - 11)**2 + 2 * (x[8] - 10)**2
            + (x[9] - 7)**2)


def wong2_increments(x):
    x1, x2, x3, x4, x5, x6, x7, x8, x9, x10 = x[:10]
    return [3 * (x1 - 2)**2 + 4 * (x2 - 3)**2 + 2 * x3**2 - 7 * x4 - 120,
            5 * x1**2 + 8 * x2 + (x3 - 6)**2 - 2 * x4 - 40,
            0.5 * (x1 - 8)**2 + 2 * (x2 - 4)**2 + 3 * x5**2 - x6 - 30,
            x1**2 + 2 * (x2 - 2)**2 - 2 * x1 * x2 + 14 * x5 - 6 * x6,
            4 * x1 + 5 * x2 - 3 * x7 + 9 * x8 - 105,
            10 * x1 - 8 * x2 - 17 * x7 + 2 * x8,
            -3 * x1 + 6 * x2 + 12 * (x9 - 8)**2 - 7 * x10,
            -8 * x1 + 2 * x2 + 5 * x9 - 2 * x10 - 12]


WONG2_X0 = [2, 3, 5, 5, 1, 2, 7, 3, 6, 10]


@minimax("wong2", WONG2_X0, 24.306209)
def _(x):
    f = wong2_base(x) + 45
    return ([f] + [f + 10 * g for g in wong2_increments(x)])


@minimax("wong3", WONG2_X0 + [2, 2, 6, 15, 1, 2, 1, 2, 1, 3], 133.72828)
def _(x):
    (x1, x2), (x11, x12, x13, x14, x15, x16, x17, x18, x19, x20) = x[:2], x[10:]
    f = (wong2_base(x) + (x11 - 9)**2 + 10 * (x12 - 1)**2 + 5 * (x13 - 7)**2 + 4 * (x14 - 14)**2
         + 27 * (x15 - 1)**2 + x16**4 + (x17 - 2)**2 + 13 * (x18 - 2)**2 + (x19 - 3)**2 + x20**2 + 95)
    more = [x1 + x2 + 4 * x11 - 21 * x12,
            x1**2 + 15 * x11 - 8 * x12 - 28,
            4 * x1 + 9 * x2 + 5 * x13**2 - 9 * x14 - 87,
            3 * x1 + 4 * x2 + 3 * (x13 - 6)**2 - 14 * x14 - 10,
            14 * x1**2 + 35 * x15 - 79 * x16 - 92,
            15 * x2**2 + 11 * x15 - 61 * x16 - 54,
            5 * x1**2 + 2 * x2 + 9 * x17**4 - x18 - 68,
            x1**2 - x2 + 19 * x19 - 20 * x20 + 19,
            7 * x1**2 + 5 * x2**2 + x19**2 - 30 * x20]
    return ([f] + [f + 10 * g for g in wong2_increments(x) + more])


@minimax("polak2", [100] + [0.1] * 9, 54.598150)
def _(x):
    w = np.ones(10)
    w[0], w[3] = 1e-8, 4
    vals = []
    for shift in (2, -2):
        z = np.array(x, dtype=float)
        z[1] += shift
        vals.append(float(np.exp(np.sum(w * z**2))))
    return (vals)


@minimax("polak3", [1] * 11, 261.08258)
def _(x):
    i = np.arange(1, 12)
    return ([np.sum((i + k - 1) * np.exp((x - np.sin(2 * i + k - 3))**2)) for k in range(1, 11)])


def watson_residuals(x):
    r = [x[0], x[1] - x[0]**2 - 1]
    for k in range(3, 32):
        t = (k - 2) / 29
        s1 = sum((i - 1) * x[i - 1] * t**(i - 2) for i in range(2, 21))
        s2 = sum(x[i - 1] * t**(i - 1) for i in range(1, 21))
        r.append(s1 - s2**2 - 1)
    return r


@minimax("watson", [0] * 20, 0.14743027e-7, absolute=True)
def _(x):
    return (watson_residuals(x))


OSBORNE2_Y = [1.366, 1.191, 1.112, 1.013, 0.991, 0.885, 0.831, 0.847, 0.786, 0.725, 0.746, 0.679, 0.608, 0.655,
              0.616, 0.606, 0.602, 0.626, 0.651, 0.724, 0.649, 0.649, 0.694, 0.644, 0.624, 0.661, 0.612, 0.558,
              0.553, 0.495, 0.500, 0.423, 0.395, 0.375, 0.372, 0.391, 0.396, 0.405, 0.428, 0.429, 0.523, 0.562,
              0.607, 0.653, 0.672, 0.708, 0.633, 0.668, 0.645, 0.632, 0.591, 0.559, 0.597, 0.625, 0.739, 0.710,
              0.729, 0.720, 0.636, 0.581, 0.428, 0.292, 0.162, 0.098, 0.054]


@minimax("osborne2", [1.3, 0.65, 0.65, 0.7, 0.6, 3, 5, 7, 2, 4.5, 5.5], 0.48027401e-1, absolute=True)
def _(x):
    t = 0.1 * np.arange(65)
    r = (np.array(OSBORNE2_Y) - x[0] * np.exp(-x[4] * t) - x[1] * np.exp(-x[5] * (t - x[8])**2)
         - x[2] * np.exp(-x[6] * (t - x[9])**2) - x[3] * np.exp(-x[7] * (t - x[10])**2))
    return (r)


# ---------------------------------------------------------------- section 3: general nonsmooth

@problem("rosenbrock", "general", [-1.2, 1], 0.0)
def _(x):
    return 100 * (x[1] - x[0]**2)**2 + (1 - x[0])**2


@problem("crescent", "general", [-1.5, 2], 0.0)
def _(x):
    return mx([x[0]**2 + (x[1] - 1)**2 + x[1] - 1, -x[0]**2 - (x[1] - 1)**2 + x[1] + 1])


@problem("cb2_ns", "general", [1, -0.1], 1.9522245)
def _(x):
    return mx([x[0]**2 + x[1]**4, (2 - x[0])**2 + (2 - x[1])**2, 2 * math.exp(-x[0] + x[1])])


@problem("cb3", "general", [2, 2], 2.0)
def _(x):
    return mx([x[0]**4 + x[1]**2, (2 - x[0])**2 + (2 - x[1])**2, 2 * math.exp(-x[0] + x[1])])


@problem("dem", "general", [1, 1], -3.0)
def _(x):
    return mx([5 * x[0] + x[1], -5 * x[0] + x[1], x[0]**2 + x[1]**2 + 4 * x[1]])


@problem("ql", "general", [-1, 5], 7.20)
def _(x):
    q = x[0]**2 + x[1]**2
    return mx([q, q + 10 * (-4 * x[0] - x[1] + 4), q + 10 * (-x[0] - 2 * x[1] + 6)])


@problem("lq", "general", [-0.5, -0.5], -1.4142136)
def _(x):
    return mx([-x[0] - x[1], -x[0] - x[1] + (x[0]**2 + x[1]**2 - 1)])


@problem("mifflin1", "general", [0.8, 0.6], -1.0)
def _(x):
    return -x[0] + 20 * max(x[0]**2 + x[1]**2 - 1, 0.0)


@problem("wolfe", "general", [3, 2], -8.0)
def _(x):
    # Wolfe (1975): three pieces by region, meeting continuously
    if x[0] > abs(x[1]):
        return 5 * np.sqrt(9 * x[0]**2 + 16 * x[1]**2)
    if x[0] > 0:
        return 9 * x[0] + 16 * abs(x[1])
    return 9 * x[0] + 16 * abs(x[1]) - x[0]**9


@problem("mifflin2", "general", [-1, -1], -1.0)
def _(x):
    y = x[0]**2 + x[1]**2 - 1
    return -x[0] + 2 * y + 1.75 * abs(y)


@problem("rosen_suzuki_ns", "general", [0, 0, 0, 0], -44.0)
def _(x):
    a, b, c, d = x
    q = a*a + b*b + c*c
    f1 = q + c*c + d*d - 5 * (a + b) - 21 * c + 7 * d
    f2 = q + d*d + a - b + c - d - 8
    f3 = q + b*b + 2 * d*d - a - d - 10
    f4 = q + 2 * a - b - d - 5
    return f1 + 10 * max(0.0, f2, f3, f4)


SHOR_A = np.array([[0, 0, 0, 0, 0], [2, 1, 1, 1, 3], [1, 2, 1, 1, 2], [1, 4, 1, 2, 2], [3, 2, 1, 0, 1],
                   [0, 2, 1, 0, 1], [1, 1, 1, 1, 1], [1, 0, 1, 2, 1], [0, 0, 2, 1, 0], [1, 1, 2, 0, 0]], dtype=float)
SHOR_B = np.array([1, 5, 10, 2, 4, 3, 1.7, 2.5, 6, 3.5])


@problem("shor", "general", [0, 0, 0, 0, 1], 22.600162)
def _(x):
    return mx(SHOR_B * np.sum((np.array(x) - SHOR_A)**2, axis=1))


# Colville's data (the dual pair Colville 1 / Shell dual): a (10 x 5), b (10),
# the symmetric C (5 x 5), d, e (5)
COL_A = np.array([[-16, 2, 0, 1, 0], [0, -2, 0, 4, 2], [-3.5, 0, 2, 0, 0], [0, -2, 0, -4, -1],
                  [0, -9, -2, 1, -2.8], [2, 0, -4, 0, 0], [-1, -1, -1, -1, -1], [-1, -2, -3, -2, -1],
                  [1, 2, 3, 4, 5], [1, 1, 1, 1, 1]], dtype=float)
COL_B = np.array([-40, -2, -0.25, -4, -4, -1, -40, -60, 5, 1], dtype=float)
COL_C = np.array([[30, -20, -10, 32, -10], [-20, 39, -6, -31, 32], [-10, -6, 10, -6, -10],
                  [32, -31, -6, 39, -20], [-10, 32, -10, -20, 30]], dtype=float)
COL_D = np.array([4, 8, 10, 6, 2], dtype=float)
COL_E = np.array([-15, -27, -36, -18, -12], dtype=float)


@problem("colville1", "general", [0, 0, 0, 0, 1], -32.348679)
def _(x):
    x = np.array(x)
    return (50 * max(0.0, mx(COL_B - COL_A @ x)) + float(np.sum(COL_D * x**3 + COL_E * x)) + float(x @ COL_C @ x))


@problem("hs78", "general", [-2, 1.5, 2, -1, -1], -2.9197004)
def _(x):
    return (x[0] * x[1] * x[2] * x[3] * x[4]
            + 10 * (abs(float(np.sum(np.array(x)**2)) - 10) + abs(x[1] * x[2] - 5 * x[3] * x[4])
                    + abs(x[0]**3 + x[1]**3 + 1)))


@problem("el_attar", "general", [2, 2, 7, 0, -2, 1], 0.5598131)
def _(x):
    return float(np.sum(np.abs(evd61_residuals(x))))


def maxquad_data():
    n = 10
    As, bs = [], []
    for k in range(1, 6):
        A = np.zeros((n, n))
        for i in range(1, n + 1):
            for j in range(i + 1, n + 1):
                A[i - 1, j - 1] = A[j - 1, i - 1] = math.exp(i / j) * math.cos(i * j) * math.sin(k)
        for i in range(1, n + 1):
            A[i - 1, i - 1] = abs(math.sin(k)) * i / n + np.sum(np.abs(A[i - 1]))
        As.append(A)
        bs.append(np.array([math.exp(i / k) * math.sin(i * k) for i in range(1, n + 1)]))
    return As, bs


@problem("maxquad", "general", [0] * 10, -0.8414083)
def _(x):
    x = np.array(x)
    As, bs = maxquad_data()
    return mx([x @ A @ x - b @ x for A, b in zip(As, bs)])


@problem("gill", "general", [-0.1] * 10, 9.7857721)
def _(x):
    x = np.array(x)
    f1 = float(np.sum((x - 1)**2)) + 1e-3 * (float(np.sum(x**2)) - 0.25)**2
    f2 = x[0]**2 + (x[1] - x[0]**2 - 1)**2
    for i in range(2, 31):
        t = (i - 1) / 29
        s1 = sum((j - 1) * x[j - 1] * t**(j - 2) for j in range(2, 11))
        s2 = sum(x[j - 1] * t**(j - 1) for j in range(1, 11))
        f2 += (s1 - s2**2 - 1)**2
    f3 = sum(100 * (x[i] - x[i - 1]**2)**2 + (1 - x[i])**2 for i in range(1, 10))
    return mx([f1, f2, f3])


STEINER_A = [0, 2, 3, 4, 5, 6]
STEINER_B = [2, 3, -1, -0.5, 2, 2]
STEINER_W = [2, 1, 1, 5, 1, 1]
STEINER_V = [1, 1, 2, 3, 2]


def steiner2_x0():
    x = [0.0] * 12
    x[0], x[6] = 2 / 3, 5 / 3
    for i in range(2, 6):
        x[i - 1] = (x[i - 2] + STEINER_A[i - 1] + STEINER_A[i]) / 3
        x[i + 5] = (x[i + 4] + STEINER_B[i - 1] + STEINER_B[i]) / 3
    x[5] = (x[4] + 11.5) / 3
    x[11] = (x[10] + 1) / 3
    return x


@problem("steiner2", "general", steiner2_x0(), 16.703838)
def _(x):
    f = math.hypot(x[0], x[6]) + math.hypot(5.5 - x[5], 1 + x[11])
    for j in range(6):
        f += STEINER_W[j] * math.hypot(STEINER_A[j] - x[j], STEINER_B[j] - x[6 + j])
    for j in range(5):
        f += STEINER_V[j] * math.hypot(x[j] - x[j + 1], x[j + 6] - x[j + 7])
    return f


MAXQ20_X0 = [float(i) for i in range(1, 11)] + [float(-i - 10) for i in range(1, 11)]


@problem("maxq", "general", MAXQ20_X0, 0.0)
def _(x):
    return mx(np.array(x)**2)


@problem("maxl", "general", MAXQ20_X0, 0.0)
def _(x):
    return mxabs(x)


@problem("goffin", "general", [i - 25.5 for i in range(1, 51)], 0.0)
def _(x):
    return 50 * mx(x) - float(np.sum(x))


def hilbert_products(x):
    n = len(x)
    i = np.arange(1, n + 1)
    H = 1.0 / (i[:, None] + i[None, :] - 1)
    return H @ np.array(x)


@problem("mxhilb", "general", [1] * 50, 0.0)
def _(x):
    return mxabs(hilbert_products(x))


@problem("l1hilb", "general", [1] * 50, 0.0)
def _(x):
    return float(np.sum(np.abs(hilbert_products(x))))


@problem("shell_dual", "general", [1e-4] * 11 + [60] + [1e-4] * 3, 32.348679)
def _(x):
    x = np.array(x)
    u, v = x[:5], x[5:]
    f = abs(2 * float(np.sum(COL_D * u**3))) + float(u @ COL_C @ u) - float(COL_B @ v)
    t = -3 * COL_D * u**2 - COL_E - 2 * COL_C @ u + COL_A.T @ v
    return f + 100 * float(np.sum(np.maximum(t, 0))) + 100 * float(np.sum(np.maximum(-x, 0)))


# ---------------------------------------------------------------- section 4: linearly constrained minimax

LINCON = {}  # name -> dict(pieces, lo, hi, cons): F = max_k f_k subject to cons and lo <= x <= hi


def lincon(name, x0, fstar, cons, lo=None, hi=None):
    """A linearly constrained minimax problem of section 4: pieces(x)
    returns the f_k; cons is a list of (a, sense, b), the constraint
    a.x <= b or a.x >= b, in the model's order; lo, hi are the bounds (None:
    none)."""
    n = len(x0)
    lo = np.full(n, -np.inf) if lo is None else np.array(lo, dtype=float)
    hi = np.full(n, np.inf) if hi is None else np.array(hi, dtype=float)

    def register(pieces):
        def f(x):
            return float(np.max(np.asarray(pieces(x), dtype=float)))
        LINCON[name] = dict(pieces=pieces, lo=lo, hi=hi, cons=[(np.array(a, dtype=float), s, float(b)) for a, s, b in cons])
        problem(name, "lincon", x0, fstar)(f)
        return pieces
    return register


def constraint_values(name, x):
    """qrc's value of each constraint at x: a.x - b for <=, b - a.x for >=
    (feasible when <= 0)."""
    if name not in LINCON:
        return []
    x = np.asarray(x, dtype=float)
    return [float(a @ x - b) if s == "<=" else float(b - a @ x) for a, s, b in LINCON[name]["cons"]]


def infeasibility(name, x):
    if name not in LINCON:
        return 0.0
    p = LINCON[name]
    x = np.asarray(x, dtype=float)
    v = [0.0] + constraint_values(name, x) + list(p["lo"] - x) + list(x - p["hi"])
    return max(v)


def mad12_pieces(x):
    return [x[0]**2 + x[1]**2 + x[0] * x[1] - 1, math.sin(x[0]), -math.cos(x[1])]


def mad45_pieces(x):
    with np.errstate(all="ignore"):
        return [-np.exp(x[0] - x[1]), np.sinh(x[0] - 1) - 1, -np.log(x[1]) - 1]


lincon("mad1", [1, 2], -0.38965952, [([1, 1], ">=", 0.5)])(mad12_pieces)
lincon("mad2", [-2, -1], -0.33035714, [([3, 1], "<=", -2.5)])(mad12_pieces)
lincon("mad4", [-1, 0.01], -0.44891079, [([0.05, -1], ">=", -0.5)], lo=[-np.inf, 0.01])(mad45_pieces)
lincon("mad5", [-1, 3], -0.42928061, [([-0.9, 1], ">=", 1)], lo=[-np.inf, 0.01])(mad45_pieces)


def unit(n, coefs):
    a = np.zeros(n)
    for i, c in coefs.items():
        a[i - 1] = c
    return a


WONG_LC = [({1: 4, 2: 5, 7: -3, 8: 9}, 105), ({1: 10, 2: -8, 7: -17, 8: 2}, 0), ({1: -8, 2: 2, 9: 5, 10: -2}, 12)]


@lincon("wong2_lc", WONG2_X0, 24.306209, [(unit(10, a), "<=", b) for a, b in WONG_LC])
def _(x):
    f = wong2_base(x) + 45
    inc = wong2_increments(x)
    return [f] + [f + 10 * g for g in (inc[0], inc[1], inc[2], inc[3], inc[6])]


@lincon("wong3_lc", WONG2_X0 + [2, 2, 6, 15, 1, 2, 1, 2, 1, 3], 133.72828,
        [(unit(20, a), "<=", b) for a, b in WONG_LC + [({1: 1, 2: 1, 11: 4, 12: -21}, 0)]])
def _(x):
    (x1, x2), (x11, x12, x13, x14, x15, x16, x17, x18, x19, x20) = x[:2], x[10:]
    f = (wong2_base(x) + (x11 - 9)**2 + 10 * (x12 - 1)**2 + 5 * (x13 - 7)**2 + 4 * (x14 - 14)**2
         + 27 * (x15 - 1)**2 + x16**4 + (x17 - 2)**2 + 13 * (x18 - 2)**2 + (x19 - 3)**2 + x20**2 + 95)
    inc = wong2_increments(x)
    more = [x1**2 + 15 * x11 - 8 * x12 - 28,
            4 * x1 + 9 * x2 + 5 * x13**2 - 9 * x14 - 87,
            3 * x1 + 4 * x2 + 3 * (x13 - 6)**2 - 14 * x14 - 10,
            14 * x1**2 + 35 * x15 - 79 * x16 - 92,
            15 * x2**2 + 11 * x15 - 61 * x16 - 54,
            5 * x1**2 + 2 * x2 + 9 * x17**4 - x18 - 68,
            x1**2 - x2 + 19 * x19 - 20 * x20 + 19,
            7 * x1**2 + 5 * x2**2 + x19**2 - 30 * x20]
    return [f] + [f + 10 * g for g in (inc[0], inc[1], inc[2], inc[3], inc[6])] + [f + 10 * g for g in more]


@lincon("mad8", [100] * 20, 0.50694799, [], lo=[0.5] * 10 + [-np.inf] * 10)
def _(x):
    s = float(np.sum(x)) - 1
    # MAD8 is a maximum of absolute values: both signs are the pieces
    odd = [s + x[j] * (2 * x[j] - 1) for j in range(19)]
    even = [s + x[j + 1] * (x[j + 1] - 1) for j in range(19)]
    v = np.array(odd + even)
    return np.concatenate([v, -v])


DEMBO3_Y = [None, 1.71500000, 0.03500000, 4.05650000, 10.0000000, 3000.00000, -0.06300000, 0.59553571e-2,
            0.88392857, -0.11756250, 1.10880000, 0.13035330, -0.00660330, 0.66173269e-3, 0.17239878e-1,
            -0.56595559e-2, -0.19120592e-1, 0.56850750e2, 1.08702000, 0.32175000, -0.03762000, 0.00619800,
            0.24623121e4, -0.25125634e2, 0.16118996e3, 5000.00000, -0.48951000e6, 0.44333333e2, 0.33000000,
            0.02255600, -0.00759500, 0.00061000, -0.00050000, 0.81967200, 0.81967200, 24500.0000, -250.000000,
            0.10204082e-1, 0.12244898e-4, 0.00006250, 0.00006250, -0.00007625, 1.22000000, 1.00000000, -1.00000000]


@lincon("dembo3", [1745, 110, 3048, 89, 92, 8, 145], 1227.2260,
        [(unit(7, {5: DEMBO3_Y[29], 7: DEMBO3_Y[30]}), "<=", 1), (unit(7, {1: DEMBO3_Y[32], 3: DEMBO3_Y[31]}), "<=", 1)],
        lo=[1, 1, 1, 85, 90, 3, 145], hi=[2000, 120, 5000, 93, 95, 12, 162])
def _(x):
    P, Y = 1e5, DEMBO3_Y
    x = [None] + list(x)  # 1-based, as the statement
    f = Y[1] * x[1] + Y[2] * x[1] * x[6] + Y[3] * x[3] + Y[4] * x[2] + Y[5] + Y[6] * x[3] * x[5]
    g = [Y[7] * x[6]**2 + Y[8] * x[3] / x[1] + Y[9] * x[6] - 1,
         (Y[10] + Y[11] * x[6] + Y[12] * x[6]**2) * x[1] / x[3] - 1,
         Y[13] * x[6]**2 + Y[14] * x[5] + Y[15] * x[4] + Y[16] * x[6] - 1,
         (Y[17] + Y[18] * x[6] + Y[19] * x[4] + Y[20] * x[6]**2) / x[5] - 1,
         Y[21] * x[7] + (Y[22] / x[4] + Y[23]) * x[2] / x[3] - 1,
         (Y[24] + (Y[25] + Y[26] / x[4]) * x[2] / x[3]) / x[7] - 1,
         (Y[27] + Y[28] * x[7]) / x[5] - 1,
         (Y[33] * x[1] + Y[34]) / x[3] - 1,
         (Y[35] / x[4] + Y[36]) * x[2] / x[3] - 1,
         (Y[37] + Y[38] * x[3] / x[2]) * x[4] - 1,
         Y[39] * x[1] * x[6] + Y[40] * x[1] + Y[41] * x[3] - 1,
         (Y[42] * x[3] + Y[43]) / x[1] + Y[44] * x[6] - 1]
    return [f] + [f + P * v for v in g]


@lincon("dembo5", [5000, 5000, 5000, 200, 350, 150, 225, 425], 7049.2480,
        [(unit(8, {4: 2.5e-3, 6: 2.5e-3}), "<=", 1), (unit(8, {4: -2.5e-3, 5: 2.5e-3, 7: 2.5e-3}), "<=", 1),
         (unit(8, {5: -1e-2, 8: 1e-2}), "<=", 1)],
        lo=[100, 1000, 1000] + [10] * 5, hi=[1e4] * 3 + [1e3] * 5)
def _(x):
    P = 1e5
    x1, x2, x3, x4, x5, x6, x7, x8 = x
    f = x1 + x2 + x3
    return [f, f + P * ((833.33252 * x4 / x1 + 100 - 83333.333 / x1) / x6 - 1),
            f + P * ((1250 * (x5 - x4) / x2 + x4) / x7 - 1), f + P * (((1.25e6 - 2500 * x5) / x3 + x5) / x8 - 1)]


@lincon("dembo7", [0.80, 0.83, 0.85, 0.87, 0.90, 0.10, 0.12, 0.19, 0.25, 0.29, 512, 13.1, 71.8, 640, 650, 5.7],
        174.78699, [(unit(16, {11: 2e-3, 12: -2e-3}), "<=", 1)],
        lo=[0.1, 0.1, 0.1, 0.1, 0.9, 1e-4, 0.1, 0.1, 0.1, 0.1, 1, 1e-6, 1, 500, 500, 1e-6],
        hi=[0.9, 0.9, 0.9, 0.9, 1.0, 0.1, 0.9, 0.9, 0.9, 0.9, 1e4, 5e3, 5e3, 1e4, 1e4, 5e3])
def _(x):
    P = 2000
    x = [None] + list(x)  # 1-based, as the statement
    f = (1.262626 * sum(x[12:17]) - 1.231060 * sum(x[j] * x[j + 11] for j in range(1, 6)))
    v = [f]
    for j in range(1, 6):
        v.append(f + P * (x[j] * (0.975 + (0.03475 - 0.00975 * x[j]) / x[j + 5]) - 1))
    v += [f + P * ((x[6] + (x[1] - x[6]) * x[12] / x[11]) / x[7] - 1),
          f + P * (((x[7] + 0.002 * (x[7] - x[1]) * x[12]) / x[8] + 0.002 * x[13] * (x[2] / x[8] - 1)) - 1),
          f + P * (x[8] + x[9] + 0.002 * x[13] * (x[8] - x[2]) + 0.002 * x[14] * (x[3] - x[9]) - 1),
          f + P * ((x[9] + ((x[4] - x[8]) * x[15] + 500 * (x[10] - x[9])) / x[14]) / x[3] - 1),
          f + P * ((x[10] / x[4] + (x[5] / x[4] - 1) * x[16] / x[15] + 500 * (1 - x[10] / x[4]) / x[15]) - 1),
          f + P * (0.9 / x[4] + 0.002 * x[16] * (1 - x[5] / x[4]) - 1),
          f + P * (x[12] / x[11] - 1), f + P * (x[4] / x[5] - 1), f + P * (x[3] / x[4] - 1),
          f + P * (x[2] / x[3] - 1), f + P * (x[1] / x[2] - 1), f + P * (x[9] / x[10] - 1),
          f + P * x[8] / x[9] - P]
    return v


# ---------------------------------------------------------------- the large-scale set (Haarala et al. 2004)

LARGE = {}  # name -> dict(x0(n), f, fstar(n), layout)


def large(name, x0, fstar, layout="natural"):
    def register(f):
        LARGE[name] = dict(name=name, set="large", x0=x0, f=f, fstar=fstar, layout=layout)
        return f
    return register


def alternate(n, odd, even):
    return np.array([odd if i % 2 == 1 else even for i in range(1, n + 1)], dtype=float)


def maxq_x0(n):
    return np.array([i if i <= n // 2 else -i for i in range(1, n + 1)], dtype=float)


@large("gmaxq", maxq_x0, lambda n: 0.0, layout="shift")
def _(x):
    return mx(x**2)


@large("gmxhilb", lambda n: np.ones(n), lambda n: 0.0)
def _(x):
    return mxabs(hilbert_products(x))


@large("chained_lq", lambda n: -0.5 * np.ones(n), lambda n: -(n - 1) * math.sqrt(2))
def _(x):
    a, b = x[:-1], x[1:]
    return float(np.sum(np.maximum(-a - b, -a - b + (a**2 + b**2 - 1))))


@large("chained_cb3_1", lambda n: 2 * np.ones(n), lambda n: 2.0 * (n - 1))
def _(x):
    a, b = x[:-1], x[1:]
    return float(np.sum(np.maximum.reduce([a**4 + b**2, (2 - a)**2 + (2 - b)**2, 2 * np.exp(-a + b)])))


@large("chained_cb3_2", lambda n: 2 * np.ones(n), lambda n: 2.0 * (n - 1))
def _(x):
    a, b = x[:-1], x[1:]
    return mx([np.sum(a**4 + b**2), np.sum((2 - a)**2 + (2 - b)**2), np.sum(2 * np.exp(-a + b))])


@large("active_faces", lambda n: np.ones(n), lambda n: 0.0)
def _(x):
    def g(y):
        return np.log(np.abs(y) + 1)
    return max(mx(g(x)), float(g(-np.sum(x))))


@large("brown2", lambda n: alternate(n, -1.0, 1.0), lambda n: 0.0, layout="oddeven")
def _(x):
    a, b = np.abs(x[:-1]), np.abs(x[1:])
    with np.errstate(divide="ignore"):
        return float(np.sum(a**(x[1:]**2 + 1) + b**(x[:-1]**2 + 1)))


# Karmitsa (2007) gives f* of chained Mifflin 2 for each n it tabulates
MIFFLIN2_FSTAR = {200: -140.86, 1000: -706.55}


@large("chained_mifflin2", lambda n: -np.ones(n), lambda n: MIFFLIN2_FSTAR.get(n, float("nan")))
def _(x):
    a, b = x[:-1], x[1:]
    y = a**2 + b**2 - 1
    return float(np.sum(-a + 2 * y + 1.75 * np.abs(y)))


def crescent_pieces(x):
    a, b = x[:-1], x[1:]
    return a**2 + (b - 1)**2 + b - 1, -a**2 - (b - 1)**2 + b + 1


@large("chained_crescent1", lambda n: alternate(n, -1.5, 2.0), lambda n: 0.0, layout="oddeven")
def _(x):
    p, q = crescent_pieces(x)
    return max(float(np.sum(p)), float(np.sum(q)))


@large("chained_crescent2", lambda n: alternate(n, -1.5, 2.0), lambda n: 0.0, layout="oddeven")
def _(x):
    p, q = crescent_pieces(x)
    return float(np.sum(np.maximum(p, q)))


LARGE_SIZES = (200, 1000)


def instance(name, n=None):
    """The problem NAME (a large one at size n) as a dict with x0, f, fstar, layout."""
    if name in PROBLEMS:
        return PROBLEMS[name]
    p = dict(LARGE[name])
    p["x0"] = p["x0"](n)
    p["fstar"] = p["fstar"](n)
    p["n"] = n
    return p


def to_model_layout(p, x):
    """x in the layout of the problem's .qrc model."""
    x = np.asarray(x, dtype=float)
    if p["layout"] == "oddeven":
        return np.concatenate([x[0::2], x[1::2]])
    if p["layout"] == "shift":
        return x - p["x0"]
    return x


def instances():
    for name in PROBLEMS:
        yield name, None, PROBLEMS[name]
    for name in LARGE:
        for n in LARGE_SIZES:
            yield name, n, instance(name, n)


def points(p, rng):
    """The start and two points near it."""
    x0 = p["x0"]
    pts = [x0]
    for _ in range(2):
        x = x0 + 0.1 * rng.standard_normal(len(x0)) * np.maximum(1, np.abs(x0))
        if p["name"] in LINCON:  # inside the bounds (MAD4's log)
            x = np.clip(x, LINCON[p["name"]]["lo"], LINCON[p["name"]]["hi"])
        pts.append(x)
    return pts


def values():
    out = []
    rng = np.random.default_rng(20261201)
    for name, n, p in instances():
        pts = []
        # the large problems at n = 1000 are checked at the start only (the
        # random points at n = 200 exercise the same expressions)
        for k, x in enumerate(points(p, rng)):
            if n == 1000 and k > 0:
                continue
            with np.errstate(all="ignore"):
                fx = p["f"](x)
            pts.append(dict(x=[float(v) for v in x], q=[float(v) for v in to_model_layout(p, x)], f=float(fx),
                            g=constraint_values(name, x)))
        fstar = p["fstar"]
        out.append(dict(name=name, set=p["set"], n=len(p["x0"]), fstar=None if math.isnan(fstar) else fstar,
                        layout=p["layout"], points=pts))
    return out


def check():
    bad = 0
    for name, n, p in instances():
        f0 = p["f"](p["x0"])
        label = name if n is None else f"{name} (n = {n})"
        if not math.isfinite(f0):
            print(f"{label}: f(x0) = {f0}", file=sys.stderr)
            bad += 1
        elif not math.isnan(p["fstar"]) and f0 < p["fstar"]:
            print(f"{label}: f(x0) = {f0} is below f* = {p['fstar']}", file=sys.stderr)
            bad += 1
    return bad


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "check"
    if cmd == "values":
        json.dump(values(), sys.stdout, indent=None, separators=(",", ":"))
        sys.stdout.write("\n")
    elif cmd == "check":
        sys.exit(1 if check() else 0)
    elif cmd == "f0":
        for name, n, p in instances():
            print(name, n, repr(p["f"](p["x0"])), p["fstar"])
    else:
        sys.exit(f"unknown command {cmd!r}: values, check or f0")
