"""Data sets and parameters from numpy and pandas, and the result's shapes."""

import math

import numpy as np
import pandas as pd
import pytest

import qrc

BUDGET = """
data obs = csv("obs.csv", label = "y")   # given from Python: the file is not read

param budget = 6

var w[obs.d] in box(-10, 10)

minimize mean(i in obs) (dot(obs.X[i], w) - obs.y[i])^2

subject to
    size: dot(w, w) <= budget
"""


def observations():
    X = np.array([[1, 0], [0, 1], [1, 1], [2, 1]], dtype=float)
    return X, X @ np.array([2.0, -1.0])  # y = 2 x1 - x2


def test_matrix_and_labels():
    m = qrc.parse(BUDGET, data={"obs": observations()})
    r = m.solve(progress=False)
    assert r.status == "converged"
    # the least-squares fit is exact, w = (2, -1), with |w|^2 = 5 <= 6
    np.testing.assert_allclose(r["w"], [2.0, -1.0], atol=1e-3)
    assert r.objective < 1e-5
    assert r.constraints.loc["size", "slack"] == pytest.approx(1.0, abs=1e-2)
    assert r.success and r.stationary


def test_budget_binds_with_a_multiplier():
    m = qrc.parse(BUDGET, data={"obs": observations()}, params={"budget": 2.0})
    r = m.solve(progress=False)
    assert r.status == "converged"
    c = r.constraints.loc["size"]
    assert abs(c["slack"]) <= 1e-3 and c["multiplier"] > 0
    # on the circle |w|^2 = 2
    assert float(r["w"] @ r["w"]) == pytest.approx(2.0, abs=1e-3)


def test_dataframe_columns_labels_filters():
    """Columns by name, the label, a numeric and a text column in filters,
    as a CSV file with the same header gives them."""
    rng = np.random.default_rng(5)
    n = 401  # odd: the text column is padded to 8 bytes
    a = rng.normal(size=n)
    b = rng.normal(size=n)
    g = rng.integers(0, 2, size=n)
    region = rng.choice(["north", "south"], size=n)
    y = np.where(a - b > 0, 1.0, -1.0)
    df = pd.DataFrame({"a": a, "b": b, "g": g, "region": region, "y": y})
    src = """
data D = csv("d.csv", label = "y", drop = ["g", "region"])
var w[D.d] in ball(5)
minimize mean(i in D) logistic(-D.y[i] * dot(D.X[i], w))
subject to
    north: mean(i in D where D.region[i] == "north") sigmoid(dot(D.X[i], w)) <= 0.6
    group: mean(i in D where D.g[i] == 1) sigmoid(dot(D.X[i], w)) <= 0.6
"""
    m = qrc.parse(src, data={"D": df})
    ds = m.summary["data"][0]
    assert ds["rows"] == n and ds["features"] == 2  # a and b; y the label, g and region dropped
    means = {c["name"]: c["means"][0]["rows"] for c in m.summary["constraints"]}
    assert means == {"north": int((region == "north").sum()), "group": int((g == 1).sum())}
    r = m.solve(progress=False)
    assert r.success
    assert r["w"].shape == (2,)
    assert r.infeasibility <= 1e-3
    # the rate the constraint bounds, computed here from the returned w
    north = region == "north"
    rate = np.mean(1 / (1 + np.exp(-(np.c_[a, b][north] @ r["w"]))))
    assert rate == pytest.approx(r.constraints.loc["north", "value"] + 0.6, abs=1e-9)


def test_missing_values():
    df = pd.DataFrame({"a": [1.0, np.nan, 3.0, 4.0], "y": [1.0, 2.0, 3.0, 4.0]})
    src = 'data D = csv("d.csv", label = "y"{opt})\nvar w\nminimize mean(i in D) (D.X[i, 1] * w - D.y[i])^2\n'
    with pytest.raises(qrc.ModelError) as info:
        qrc.parse(src.format(opt=""), data={"D": df})
    assert 'missing value (NaN) in column "a", row 2' in info.value.message
    m = qrc.parse(src.format(opt=', missing = "drop"'), data={"D": df})
    assert m.summary["data"][0]["rows"] == 3
    assert m.solve(progress=False)["w"] == pytest.approx(1.0, abs=1e-3)


def test_parameters_exact_and_shapes():
    src = """
param c = [1, 2, 3]
param A = [[1, 0], [0, 1], [1, 1]]
param s = 1
var W[3, 2]
minimize sum(i in 1..3) sum(j in 1..2) (W[i, j] - s * c[i] * A[i, j])^2
"""
    m = qrc.parse(src, params={"c": np.array([0.1, 1 / 3, 2.5]), "A": np.eye(3, 2), "s": "2 / 4"})
    assert m.variables == {"W": (3, 2)}
    r = m.solve(progress=False)
    assert r.status == "converged"
    assert r["W"].shape == (3, 2)
    want = 0.5 * np.array([0.1, 1 / 3, 2.5])[:, None] * np.eye(3, 2)
    np.testing.assert_allclose(r["W"], want, atol=1e-6)
    params = {p["name"]: p["value"] for p in m.summary["params"]}
    assert params["c"][1] == 1 / 3  # the exact float64 went through


def test_trace_and_constraints_frames():
    m = qrc.parse(BUDGET, data={"obs": observations()}, params={"budget": 2.0})
    r = m.solve(progress=False)
    t = r.trace
    assert list(t.columns) == ["seconds", "t", "phase", "objective", "infeasibility", "max_violated", "step",
                               "feasible_fraction", "rho_hat"]
    assert len(t) == r.outer_iterations + r.json.get("phase1_outer_iterations", 0)
    assert list(t["t"]) == sorted(t["t"]) and set(t["phase"]) <= {"phase1", "iqrc"}
    assert list(r.constraints.columns) == ["name", "op", "value", "rhs", "slack", "violation", "multiplier"]
    assert r.certificate.startswith("nearly stationary")
    assert "status" in r.text and "converged" in r.text


def test_progress_callback_sees_outer_iterations():
    m = qrc.parse(BUDGET, data={"obs": observations()}, params={"budget": 2.0})
    seen = []
    r = m.solve(progress=seen.append)
    assert seen, "no progress event"
    assert all(isinstance(p, qrc.Progress) for p in seen)
    assert seen[0].t >= 1 and seen[-1].t <= r.outer_iterations + 1
    assert seen[0].phase in ("phase1", "iqrc")


def test_start_options():
    m = qrc.parse(BUDGET, data={"obs": observations()}, params={"budget": 2.0})
    r = m.solve(start="random", seed=3, progress=False)
    assert r.success
    r2 = m.solve(start={"w": [1.0, -1.0]}, progress=False)
    assert r2.success
    with pytest.raises(qrc.OptionError):
        m.solve(start={"w": [1.0, 2.0, 3.0]}, progress=False)


def test_starts_needs_a_qrc_with_it():
    """starts= is passed as --starts; a qrc without that flag refuses it by
    name (multistart is another issue)."""
    m = qrc.parse("var x in box(-1, 1)\nminimize x^2\n")
    try:
        r = m.solve(starts=2, progress=False)
    except qrc.OptionError as e:
        assert "starts" in str(e)
    else:
        assert r.success


def test_live_line(capsys):
    """progress=True draws one line rewritten in place (a terminal's)."""
    m = qrc.parse(BUDGET, data={"obs": observations()}, params={"budget": 2.0})
    m.solve(progress=True)
    err = capsys.readouterr().err
    assert err.startswith("\rqrc: ") and err.endswith("\n")
    assert err.count("\n") == 1  # one line, rewritten with \r
    assert "objective" in err and "infeasibility" in err


def test_non_finite_values():
    """JSON has no NaN or infinity: qrc writes them as strings, in the
    result and as NaN, +Inf, -Inf in the trace; they read as floats."""
    m = qrc.parse("var x[2] in box(-1, 1) = [-0.5, 1]\nminimize log(x[1]) + x[2]\n")
    r = m.solve(progress=False)
    assert r.status == "numerical_error"
    assert math.isnan(r.objective)
    header = "seconds,t,phase,objective,infeasibility,max_violated,step,feasible_fraction,rho_hat\n"
    r = qrc.Result({"result": {"status": "iteration_limit", "objective": "-Infinity", "variables": {"x": ["NaN", 1]}},
                    "trace": header + "0.5,1,phase1,NaN,+Inf,NaN,0.25,0,1\n0.75,2,iqrc,-Inf,0,,0.125,1,2\n"})
    assert r.objective == -math.inf and math.isnan(r["x"][0]) and r["x"][1] == 1
    t = r.trace
    assert math.isnan(t["objective"][0]) and t["infeasibility"][0] == math.inf and t["objective"][1] == -math.inf
    assert list(t["max_violated"]) == ["NaN", ""]  # a constraint's name, never a number
    assert str(t["t"].dtype) == "int64" and str(t["feasible_fraction"].dtype) == "float64"
