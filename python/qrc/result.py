"""The result of a solve."""

from __future__ import annotations

import io
import math
from typing import Any, Dict, List, Optional

import numpy as np


def _num(v: Any) -> Any:
    """A JSON number of qrc's result, with "NaN", "Infinity" and
    "-Infinity" (JSON has none) as floats."""
    if isinstance(v, str):
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.get(v, v)
    return v


def _array(v: Any) -> np.ndarray:
    if isinstance(v, list):
        return np.array([_array(e) if isinstance(e, list) else _num(e) for e in v], dtype=float)
    return np.array(_num(v), dtype=float)


class Result:
    """What ``qrc solve --json`` reports, as Python values.

    ``status`` is the solver's word for the point (``converged``,
    ``iteration_limit``, ``time_limit``, ``interrupted``, ``stalled``,
    ``uncertified``, ``infeasible``, ``numerical_error``, ``unbounded``;
    docs/cli.md says what each promises), ``success`` whether the point is
    returned as a success. ``variables`` maps each variable to a numpy array
    of its declared shape (``result["x"]`` is the same); ``constraints`` is a
    DataFrame (name, op, value f = lhs - rhs, rhs, slack, violation,
    multiplier); ``trace`` a DataFrame of the outer iterations (the columns
    of ``qrc solve --trace``); ``certificate`` the stationarity line of the
    text report; ``text`` the whole text report as ``qrc solve`` prints it;
    ``json`` the result object itself; ``notes`` what ``qrc solve`` prints
    on standard error before the table (the oracle picked and why ...).
    """

    def __init__(self, resp: dict):
        r = resp["result"]
        self.json: Dict[str, Any] = r
        self.text: str = resp.get("text", "")
        self.notes: List[str] = list(resp.get("notes") or [])
        self._trace_csv: str = resp.get("trace", "")
        self.status: str = r.get("status", "")
        self.success: bool = bool(r.get("success"))
        self.objective: float = float(_num(r.get("objective")) if r.get("objective") is not None else math.nan)
        self.infeasibility: float = float(_num(r.get("infeasibility", math.nan)))
        st = r.get("stationarity")
        self.stationarity: Optional[float] = None if st is None else float(_num(st))
        self.stationary: bool = bool(r.get("stationary"))
        self.verdict: str = r.get("verdict", "") or ""
        self.error: str = r.get("error", "") or ""
        self.seconds: float = float(_num(r.get("seconds", 0.0)))
        self.outer_iterations: int = int(r.get("outer_iterations", 0))
        self.inner_iterations: int = int(r.get("inner_iterations", 0))
        self.oracle: str = (r.get("settings") or {}).get("oracle", "")
        self.variables: Dict[str, np.ndarray] = {k: _array(v) for k, v in (r.get("variables") or {}).items()}
        self._trace = None
        self._constraints = None

    @property
    def certificate(self) -> str:
        """The certificate as the text report states it: the stationarity
        line (``nearly stationary: KKT residual <= ... at x_hat ...``, or why
        there is none)."""
        for line in self.text.splitlines():
            if line.startswith("stationarity"):
                return line[len("stationarity"):].strip()
        return self.json.get("no_certificate", "") or ""

    @property
    def constraints(self):
        """Each expanded constraint with its value, slack and multiplier."""
        import pandas as pd

        if self._constraints is None:
            rows = []
            for c in self.json.get("constraints") or []:
                rows.append(
                    {
                        "name": c.get("name"),
                        "op": c.get("op"),
                        "value": float(_num(c.get("value"))),
                        "rhs": None if c.get("rhs") is None else float(_num(c.get("rhs"))),
                        "slack": float(_num(c.get("slack"))),
                        "violation": float(_num(c.get("violation"))),
                        "multiplier": math.nan if c.get("multiplier") is None else float(_num(c.get("multiplier"))),
                    }
                )
            cols = ["name", "op", "value", "rhs", "slack", "violation", "multiplier"]
            self._constraints = pd.DataFrame(rows, columns=cols).set_index("name", drop=False)
        return self._constraints

    @property
    def trace(self):
        """The outer iterations: seconds, t, phase, objective,
        infeasibility, max_violated, step, feasible_fraction, rho_hat."""
        import pandas as pd

        if self._trace is None:
            if self._trace_csv.strip():
                nums = ["seconds", "objective", "infeasibility", "step", "feasible_fraction", "rho_hat"]
                self._trace = pd.read_csv(
                    io.StringIO(self._trace_csv), float_precision="round_trip", keep_default_na=False,
                    na_values={c: ["NaN"] for c in nums},  # +Inf and -Inf read as floats
                    dtype={"phase": str, "max_violated": str, "t": "int64", **{c: "float64" for c in nums}},
                )
            else:
                self._trace = pd.DataFrame(
                    columns=["seconds", "t", "phase", "objective", "infeasibility", "max_violated", "step",
                             "feasible_fraction", "rho_hat"]
                )
        return self._trace

    def __getitem__(self, name: str) -> np.ndarray:
        return self.variables[name]

    def point(self) -> dict:
        """The point as a point file's object ({"variables": ...}), the
        start of another solve."""
        return {"variables": self.json.get("variables") or {}}

    def __repr__(self) -> str:
        return (
            f"<qrc.Result {self.status}: objective {self.objective:.6g}, infeasibility {self.infeasibility:.3g}, "
            f"{self.outer_iterations} outer iterations, {self.seconds:.3g} s>"
        )

    def __str__(self) -> str:
        return self.text
