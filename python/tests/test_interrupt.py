"""Ctrl-C during a solve stops it with the best point so far."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np

import qrc

# A model the switching oracle never certifies at eps = 1e-12 within its
# 10^6 outer iterations: the solve runs until it is interrupted (the time
# limit is only a backstop against a hang).
ENDLESS = "var x[20] in box(-1, 1)\nminimize sum(i in 1..20) abs(x[i] - 0.3 * i / 20) + x[1]^2\n"
ENDLESS_OPTS = dict(oracle="switching", eps=1e-12, outer=1000000, time_limit=300)


def test_keyboard_interrupt_in_callback_returns_best_point():
    m = qrc.parse(ENDLESS, name="endless.qrc")
    seen = []

    def progress(p):
        seen.append(p)
        if len(seen) == 3:
            raise KeyboardInterrupt  # what Ctrl-C raises in the main thread

    r = m.solve(progress=progress, **ENDLESS_OPTS)
    assert r.status == "interrupted"
    assert r["x"].shape == (20,)
    assert np.all(np.abs(r["x"]) <= 1)
    # the best point so far is at least as good as the start's objective
    start = sum(0.3 * i / 20 for i in range(1, 21))
    assert r.objective <= start
    assert r.outer_iterations >= 1
    # the server goes on: the same model solves again, warm from that point
    again = m.solve(oracle="bundle", progress=False)
    assert again.status == "converged"
    # the optimum: x[i] = 0.3 i / 20, the objective x[1]^2 = 0.015^2
    assert abs(again.objective - 0.015**2) <= 1e-3


SCRIPT = textwrap.dedent(
    """
    import json, os, signal, sys
    import qrc
    m = qrc.parse(sys.argv[1], name="endless.qrc")
    n = [0]
    def progress(p):
        n[0] += 1
        if n[0] == 2:
            os.kill(os.getpid(), signal.SIGINT)  # a real Ctrl-C
    r = m.solve(progress=progress, **json.loads(sys.argv[2]))
    print(json.dumps({"status": r.status, "outer": r.outer_iterations, "x": r["x"].tolist()}))
    """
)


def test_sigint_stops_the_solve(qrc_binary, tmp_path):
    """A real SIGINT to the Python process: solve returns interrupted, the
    process goes on and exits normally."""
    env = dict(os.environ, QRC_BINARY=qrc_binary, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.run([sys.executable, "-c", SCRIPT, ENDLESS, json.dumps(ENDLESS_OPTS)],
                       capture_output=True, text=True, timeout=600, env=env)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["status"] == "interrupted"
    assert len(out["x"]) == 20


def test_error_in_callback_stops_the_solve():
    m = qrc.parse(ENDLESS, name="endless.qrc")

    def progress(p):
        raise ValueError("my callback failed")

    try:
        m.solve(progress=progress, **ENDLESS_OPTS)
    except ValueError as e:
        assert "my callback failed" in str(e)
    else:
        raise AssertionError("the callback's error was not raised")
    assert m.solve(oracle="bundle", progress=False).status == "converged"
