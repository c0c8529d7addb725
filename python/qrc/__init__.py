"""qrc from Python: load a model, give it DataFrames and arrays, solve.

    import pandas as pd, qrc
    m = qrc.load("examples/adult.qrc", data={"people": pd.read_csv("adult.csv")})
    r = m.solve(time_limit=60)
    r.status, r.objective, r["x"], r.constraints, r.trace
    m.set(delta=0.02); r2 = m.solve()   # warm-started from r

The work is done by a ``qrc serve`` process this package starts (see
qrc._server.find_binary for where it finds the binary) and talks to over a
pipe; docs/python.md describes the package and the protocol.
"""

from .errors import (
    DataError,
    Diagnostic,
    ModelError,
    OptionError,
    QrcError,
    RefusedError,
    ServerError,
)
from .model import Model, load, parse
from .progress import Progress
from .result import Result

__all__ = [
    "DataError",
    "Diagnostic",
    "Model",
    "ModelError",
    "OptionError",
    "Progress",
    "QrcError",
    "RefusedError",
    "Result",
    "ServerError",
    "load",
    "parse",
]

__version__ = "0.1.0.dev0"
