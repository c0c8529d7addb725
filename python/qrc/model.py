"""Models: load, change a parameter, solve."""

from __future__ import annotations

import datetime
import os
import weakref
from typing import Any, Callable, Dict, Mapping, Optional, Union

from . import _data
from ._server import Server, server
from .errors import OptionError
from .progress import Progress, reporter
from .result import Result

DataValue = Any  # a DataFrame, a 2-D array, (X, y), or a file path


class _Frame:
    """A data set sent to the server; freed there when no model uses it."""

    def __init__(self, srv: Server, handle: str):
        self.srv, self.handle = srv, handle
        weakref.finalize(self, _free, srv, {"op": "free", "handle": handle})


def _free(srv: Server, msg: dict) -> None:
    srv.free_later(msg)


def _flag_value(name: str, v: Any) -> Optional[str]:
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, datetime.timedelta):
        return repr(v.total_seconds())
    if isinstance(v, float):
        return repr(v)
    return str(v)


def solve_flags(options: Mapping[str, Any]) -> list:
    """qrc solve's flags for keyword options: ``time_limit=10`` is
    ``--time-limit=10``, ``eps=1e-4`` ``--eps=0.0001`` (a float's shortest
    exact text), ``allow_biased=True`` ``--allow-biased=true``; None leaves
    a flag out. Names qrc solve does not know are refused by it."""
    flags = []
    for k, v in options.items():
        s = _flag_value(k, v)
        if s is not None:
            flags.append(f"--{k.replace('_', '-')}={s}")
    return flags


class Model:
    """A model loaded by ``qrc serve``: checked and compiled, with its data.

    Make one with :func:`load` (a file) or :func:`parse` (text). A model
    remembers its last result: :meth:`solve` starts from it (a warm start,
    as the REPL's ``:solve``) unless told ``start=``, and :meth:`set`
    changes parameters in place, keeping that start, so that a loop of
    ``m.set(delta=d); m.solve()`` follows a path of solutions.
    """

    def __init__(self, *, file: Optional[str] = None, source: Optional[str] = None, name: Optional[str] = None,
                 data: Optional[Mapping[str, DataValue]] = None, params: Optional[Mapping[str, Any]] = None,
                 dir: Optional[str] = None, _srv: Optional[Server] = None, _frames: Optional[Dict[str, Any]] = None):
        self._srv = _srv or server()
        self._file, self._source, self._name = file, source, name
        self._dir = os.path.abspath(dir) if dir is not None else os.getcwd()
        self._params: Dict[str, Any] = dict(params or {})
        # data set name -> _Frame (sent) or an absolute path
        self._data: Dict[str, Any] = dict(_frames or {})
        for k, v in (data or {}).items():
            if _data.is_path(v):
                self._data[k] = os.path.abspath(os.fspath(v))
            else:
                req, payload = _data.frame(k, v)
                nbytes = sum(len(p) for p in payload)
                resp = self._srv.request({"op": "frame", "frame": req, "payload": nbytes}, payload)
                self._data[k] = _Frame(self._srv, resp["frame"])
        self.last: Optional[Result] = None
        self._handle: Optional[str] = None
        self._load()

    def _load(self) -> None:
        req: Dict[str, Any] = {"op": "load", "dir": self._dir, "params": _data.params(self._params), "data": {}}
        if self._source is not None:
            req["source"] = self._source
            req["name"] = self._name or "<string>"
        else:
            req["file"] = self._file
        for k, v in self._data.items():
            req["data"][k] = {"frame": v.handle} if isinstance(v, _Frame) else {"path": v}
        resp = self._srv.request(req)
        old = self._handle
        self._handle = resp["model"]
        self.summary: Dict[str, Any] = resp.get("summary") or {}
        from .errors import Diagnostic

        self.warnings = [Diagnostic._from_json(d) for d in resp.get("warnings") or [] if d.get("severity") == "warning"]
        if old is not None:
            self._freer()  # frees the model loaded before
        self._freer = weakref.finalize(self, _free, self._srv, {"op": "free", "model": self._handle})

    @property
    def params(self) -> Dict[str, Any]:
        """The parameters given from Python (the others keep the model's values)."""
        return dict(self._params)

    @property
    def variables(self) -> Dict[str, tuple]:
        """Each variable's shape."""
        return {v["name"]: tuple(v.get("shape") or ()) for v in self.summary.get("variables") or []}

    def set(self, **params: Any) -> "Model":
        """Changes parameters (a number, a vector, a matrix, or an expression
        as a string) and loads the model again, keeping its data on the
        server and its last result as the next solve's start; returns the
        model."""
        new = dict(self._params, **params)
        before = self._params
        self._params = new
        try:
            self._load()
        except Exception:
            self._params = before
            raise
        return self

    def with_params(self, **params: Any) -> "Model":
        """A new model with these parameters changed, sharing the data."""
        m = Model(file=self._file, source=self._source, name=self._name, params=dict(self._params, **params),
                  dir=self._dir, _srv=self._srv, _frames=self._data)
        m.last = self.last
        return m

    def solve(self, *, start: Union[None, str, Result, Mapping[str, Any]] = None,
              progress: Union[None, bool, Callable[[Progress], None]] = None,
              oracle: Optional[str] = None, method: Optional[str] = None, eps: Optional[float] = None,
              time_limit: Union[None, float, str, datetime.timedelta] = None, seed: Optional[int] = None,
              starts: Optional[int] = None, restarts: Optional[int] = None, outer: Optional[int] = None,
              inner: Optional[int] = None, **options: Any) -> Result:
        """Solves the model with qrc solve's options and returns the Result.

        start: None (the last result if there is one, else the model's
        start), ``"model"`` (the model's start), ``"random"`` (seeded by
        ``seed``), a Result, or a dict of variable values (arrays).
        progress: a function of a Progress, True, False or None (see
        qrc.progress). The options are qrc solve's flags with underscores
        (``oracle="bundle"``, ``time_limit=30``, ``eps=1e-4``, ``seed=2``,
        ``restarts=0``, ``sample=20000`` ...); ``starts`` (multistart) is
        passed as ``--starts`` and needs a qrc that has that flag.

        Ctrl-C (KeyboardInterrupt) during the solve stops it as it stops
        qrc solve: the Result has status ``interrupted`` and the best point
        so far (a second Ctrl-C gives up on the solver process at once).
        """
        opts = dict(oracle=oracle, method=method, eps=eps, time_limit=time_limit, seed=seed, starts=starts,
                    restarts=restarts, outer=outer, inner=inner)
        opts.update(options)
        req: Dict[str, Any] = {"op": "solve", "model": self._handle, "flags": solve_flags(opts)}
        req["start"] = self._start(start)
        show = reporter(progress)
        req["progress"] = 0.0 if show is None else 0.2
        interrupted = []

        def on_event(e: dict) -> None:
            if e.get("event") == "progress" and show is not None:
                show(Progress._from_event(e))

        def on_interrupt() -> bool:
            interrupted.append(True)
            self._srv.interrupt()
            return True

        try:
            resp = self._srv.request(req, on_event=on_event, on_interrupt=on_interrupt)
        finally:
            close = getattr(show, "close", None)
            if close is not None:
                close()
        res = Result(resp)
        self.last = res
        return res

    def _start(self, start: Any) -> Any:
        if start is None:
            if self.last is not None and self._fits(self.last):
                return self.last.point()
            return "model"
        if isinstance(start, str):
            if start not in ("model", "random"):
                raise OptionError(f"start must be 'model', 'random', a Result or a dict of arrays, not {start!r}")
            return start
        if isinstance(start, Result):
            return start.point()
        if isinstance(start, Mapping):
            import numpy as np

            return {"variables": {k: np.asarray(v, dtype=float).tolist() for k, v in start.items()}}
        raise OptionError(f"start must be 'model', 'random', a Result or a dict of arrays, not {type(start).__name__}")

    def _fits(self, res: Result) -> bool:
        shapes = self.variables
        return set(shapes) == set(res.variables) and all(
            tuple(res.variables[k].shape) == tuple(s) for k, s in shapes.items()
        )

    def __repr__(self) -> str:
        what = self._file or self._name or "<string>"
        return f"<qrc.Model {what} {self.summary.get('scalars', '?')} scalars>"


def load(path: Union[str, os.PathLike], *, data: Optional[Mapping[str, DataValue]] = None,
         params: Optional[Mapping[str, Any]] = None) -> Model:
    """Loads the model file at path, with data sets (DataFrames, arrays,
    (X, y), or files) and parameters given by name. Raises ModelError with
    the positions of every error."""
    return Model(file=os.fspath(path), data=data, params=params)


def parse(source: str, *, data: Optional[Mapping[str, DataValue]] = None,
          params: Optional[Mapping[str, Any]] = None, name: str = "<string>", dir: Optional[str] = None) -> Model:
    """Loads a model from its text; name is its file name in diagnostics,
    and its data paths are relative to dir (default: the working
    directory)."""
    return Model(source=source, name=name, data=data, params=params, dir=dir)
