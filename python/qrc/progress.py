"""Progress of a running solve: a callback, and a live line.

A progress event is a :class:`Progress`: the outer iteration's phase
(``phase1``, ``iqrc`` ...), t, seconds, objective, infeasibility, the most
violated constraint (``worst``), the step and RhoHat, as ``qrc solve``'s
progress table shows them. ``Model.solve(progress=...)`` takes a function
of a Progress, True (a live line), False (nothing), or None (the default:
a live line in Jupyter, or on standard error when it is a terminal).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Any, Callable, Optional


@dataclass(frozen=True)
class Progress:
    phase: str
    t: int
    seconds: float
    objective: float
    infeasibility: float
    worst: str
    step: float
    rho_hat: float
    estimate: bool  # the values are on a sample or a minibatch
    stage: str  # "certificate" or "polish" after the iterations, else ""

    @classmethod
    def _from_event(cls, e: dict) -> "Progress":
        def f(v: Any) -> float:
            if isinstance(v, str):
                return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.get(v, math.nan)
            return float(v)

        return cls(
            phase=e.get("phase", ""),
            t=int(e.get("t", 0)),
            seconds=f(e.get("seconds", 0)),
            objective=f(e.get("objective", math.nan)),
            infeasibility=f(e.get("infeasibility", math.nan)),
            worst=e.get("worst", "") or "",
            step=f(e.get("step", math.nan)),
            rho_hat=f(e.get("rho_hat", math.nan)),
            estimate=bool(e.get("estimate")),
            stage=e.get("stage", "") or "",
        )

    def line(self) -> str:
        what = self.stage or self.phase
        worst = self.worst or "-"
        return (
            f"{what:<8} t={self.t:<5d} {self.seconds:8.2f}s  objective {self.objective:<12.6g} "
            f"infeasibility {self.infeasibility:<10.3g} worst {worst}"
        )


def _in_jupyter() -> bool:
    ip = sys.modules.get("IPython")
    if ip is None:
        return False
    try:
        shell = ip.get_ipython()
    except Exception:  # pragma: no cover
        return False
    return shell is not None and shell.__class__.__name__ == "ZMQInteractiveShell"


class _Line:
    """A live line: rewritten in place on a terminal, a display updated in
    Jupyter."""

    def __init__(self, stream=None, jupyter: Optional[bool] = None):
        self.jupyter = _in_jupyter() if jupyter is None else jupyter
        self.stream = stream or sys.stderr
        self.handle = None
        self.width = 0

    def show(self, text: str) -> None:
        if self.jupyter:
            from IPython.display import display

            if self.handle is None:
                self.handle = display({"text/plain": text}, raw=True, display_id=True)
            else:
                self.handle.update({"text/plain": text}, raw=True)
            return
        pad = max(0, self.width - len(text))
        self.stream.write("\r" + text + " " * pad)
        self.stream.flush()
        self.width = len(text)

    def close(self, text: str = "") -> None:
        if text:
            self.show(text)
        if not self.jupyter and self.width:
            self.stream.write("\n")
            self.stream.flush()


def reporter(progress: Any) -> Optional[Callable[[Progress], None]]:
    """The function a solve calls with each Progress, or None for none;
    it has a close() when it draws a live line."""
    if progress is False:
        return None
    if callable(progress):
        return progress
    if progress is None and not (_in_jupyter() or getattr(sys.stderr, "isatty", lambda: False)()):
        return None
    line = _Line()

    def show(p: Progress) -> None:
        line.show("qrc: " + p.line())

    show.close = line.close  # type: ignore[attr-defined]
    return show
