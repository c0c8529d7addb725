"""A model solved from a DataFrame gives bit for bit the result qrc solve
gives on the same data read from its file."""

import json
import struct

import numpy as np
import pandas as pd

import qrc
from conftest import run_cli, shared_data


def bits(v):
    return struct.pack("<d", float(v))


def assert_same_result(r, cli):
    """r (a qrc.Result) and cli (qrc solve --json's object) are the same
    solve: status, counts, and every number bit for bit."""
    assert r.status == cli["status"]
    assert r.outer_iterations == cli["outer_iterations"]
    assert r.inner_iterations == cli["inner_iterations"]
    assert bits(r.objective) == bits(cli["objective"])
    assert bits(r.infeasibility) == bits(cli["infeasibility"])
    if cli["stationarity"] is None:
        assert r.stationarity is None
    else:
        assert bits(r.stationarity) == bits(cli["stationarity"])
    assert set(r.variables) == set(cli["variables"])
    for name, v in cli["variables"].items():
        want = np.array(v, dtype=float)
        got = r[name]
        assert got.shape == want.shape
        assert got.tobytes() == want.tobytes(), name
    cons = r.constraints
    assert list(cons["name"]) == [c["name"] for c in cli["constraints"]]
    for c in cli["constraints"]:
        assert bits(cons.loc[c["name"], "value"]) == bits(c["value"])
        assert bits(cons.loc[c["name"], "slack"]) == bits(c["slack"])
        assert bits(cons.loc[c["name"], "multiplier"]) == bits(c["multiplier"])


def read_csv(path):
    # round_trip: the correctly rounded parser, so the DataFrame holds the
    # numbers qrc's CSV loader reads
    return pd.read_csv(path, float_precision="round_trip")


def test_adult_standin_dataframe_matches_cli(qrc_binary, repo):
    """The parity model on the shipped stand-in of Adult (1000 rows), with
    the default settings."""
    code, out, err = run_cli(qrc_binary, "solve", "examples/adult.qrc", "--json", "--quiet")
    assert code == 0, err
    cli = json.loads(out)
    df = read_csv(repo / "examples" / "data" / "adult.csv")
    m = qrc.load(repo / "examples" / "adult.qrc", data={"people": df})
    r = m.solve(progress=False)
    assert r.status == "converged"
    assert_same_result(r, cli)
    assert r["x"].shape == (df.shape[1] - 3,)  # income is the label, male and white dropped


def test_adult_parity_dataframe_matches_cli(qrc_binary, repo):
    """The parity model on the real Adult (30 162 rows) from a DataFrame,
    three outer iterations of the smooth oracle, against qrc solve on the
    file."""
    adult = shared_data("adult.csv")
    code, out, err = run_cli(qrc_binary, "solve", "examples/adult.qrc", "--data", f"people={adult}",
                             "--oracle", "smooth", "--outer", "3", "--json", "--quiet")
    assert code == 0, err
    cli = json.loads(out)
    df = read_csv(adult)
    m = qrc.load(repo / "examples" / "adult.qrc", data={"people": df})
    r = m.solve(oracle="smooth", outer=3, progress=False)
    assert r.status == "iteration_limit"
    assert_same_result(r, cli)


def test_warm_resolve_matches_cli_start(qrc_binary, repo, tmp_path):
    """m.set(delta=...) then m.solve() starts from the last result: the same
    solve as qrc solve --set delta=... --start last.json."""
    df = read_csv(repo / "examples" / "data" / "adult.csv")
    m = qrc.load(repo / "examples" / "adult.qrc", data={"people": df}, params={"delta": 0.1})
    first = m.solve(progress=False)
    (tmp_path / "first.json").write_text(json.dumps(first.json))
    second = m.set(delta=0.02).solve(progress=False)
    code, out, err = run_cli(qrc_binary, "solve", "examples/adult.qrc", "--set", "delta=0.02",
                             "--start", tmp_path / "first.json", "--json", "--quiet")
    assert code == 0, err
    cli = json.loads(out)
    assert_same_result(second, cli)
    # and it is not the cold solve: qrc solve from the model's start differs
    code, out, _ = run_cli(qrc_binary, "solve", "examples/adult.qrc", "--set", "delta=0.02", "--json", "--quiet")
    cold = json.loads(out)
    assert cold["outer_iterations"] != second.outer_iterations or cold["variables"] != second.json["variables"]
    # the tighter gap binds: a constraint at its bound with a positive multiplier
    cons = second.constraints
    assert (cons["multiplier"] > 0).any()
