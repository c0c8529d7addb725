"""The notebook-style example runs (on the shipped stand-in of Adult) and
its notebook has the script's cells."""

import json
import os
import runpy
import sys
from pathlib import Path

import numpy as np

from conftest import REPO

EXAMPLE = REPO / "python" / "examples" / "adult_fairness.py"


def test_example_runs_on_the_standin(monkeypatch, capsys):
    monkeypatch.setenv("QRC_ADULT", str(REPO / "examples" / "data" / "adult.csv"))
    monkeypatch.setenv("QRC_EXAMPLE_TIME_LIMIT", "0")  # no limit: the outcome must not depend on speed
    ns = runpy.run_path(str(EXAMPLE), run_name="__main__")
    table = ns["table"]
    assert list(table.index) == [0.2, 0.1, 0.05, 0.02]
    assert set(table["status"]) <= {"converged", "stalled", "iteration_limit", "time_limit"}
    # each soft gap within its delta (up to eps), and the loss grows as delta tightens
    for delta, row in table.iterrows():
        assert row["soft gap"] <= delta + 1e-3
    loss = table["loss"].to_numpy()
    assert np.all(np.diff(loss) >= -1e-3)
    assert "rows" in capsys.readouterr().out


def test_notebook_has_the_scripts_cells():
    sys.path.insert(0, str(REPO / "python" / "tools"))
    try:
        import py2ipynb
    finally:
        sys.path.pop(0)
    want = py2ipynb.notebook(EXAMPLE.read_text())
    got = json.loads(EXAMPLE.with_suffix(".ipynb").read_text())
    assert [(c["cell_type"], "".join(c["source"])) for c in got["cells"]] == \
        [(c["cell_type"], "".join(c["source"])) for c in want["cells"]], \
        "run python3 python/tools/py2ipynb.py python/examples/adult_fairness.py"
