#!/usr/bin/env python3
"""SciPy's SLSQP on the Hock-Schittkowski problems of hs.py, scored by the
suite's rule, for the table beside qrc (QRC_HS_TABLE=1 go test ./hs -run
TestTable -v; docs/testsuite.md).

SLSQP runs with SciPy's default options (maxiter 100, ftol 1e-6) and
finite-difference gradients (no jac given: SciPy's 2-point differences),
from the published start projected onto the bounds (as qrc starts), with
the bounds as bounds, g(x) >= 0 as 'ineq' and h(x) = 0 as 'eq'
constraints.

    python3 hs/ref/slsqp.py [NAME ...]   # JSON on stdout, one object per problem
"""
import json
import math
import sys
import time
import warnings

import numpy as np
from scipy.optimize import minimize

import hs


def run(p):
    x0 = np.array(hs.start(p))
    _, g0, h0 = hs.evaluate(p, x0)

    def f(x):
        return hs.evaluate(p, x)[0]

    cons = [{"type": "ineq", "fun": (lambda x, i=i: hs.evaluate(p, x)[1][i])} for i in range(len(g0))]
    cons += [{"type": "eq", "fun": (lambda x, i=i: hs.evaluate(p, x)[2][i])} for i in range(len(h0))]
    bounds = [(None if math.isinf(lo) else lo, None if math.isinf(hi) else hi) for lo, hi in zip(p["lb"], p["ub"])]
    began = time.perf_counter()
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            r = minimize(f, x0, method="SLSQP", bounds=bounds, constraints=cons)
        x, message, nit = r.x, r.message, int(r.nit)
    except (ValueError, ArithmeticError) as e:  # a value SLSQP cannot take (log of a negative number ...)
        x, message, nit = x0, f"error: {e}", 0
    seconds = time.perf_counter() - began
    with np.errstate(all="ignore"):
        fx = hs.evaluate(p, x)[0]
        inf = hs.infeasibility(p, list(x))
    ok = (not math.isnan(fx) and not math.isnan(inf) and inf <= 1e-6
          and fx <= p["fstar"] + 1e-4 * max(1.0, abs(p["fstar"])))
    finite = (lambda v: v if math.isfinite(v) else None)
    return dict(name=p["name"], f=finite(fx), infeasibility=finite(inf), success=bool(ok), iterations=nit,
                message=str(message), seconds=seconds)


def main(names):
    names = names or sorted(hs.PROBLEMS)
    json.dump([run(hs.PROBLEMS[n]) for n in names], sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
