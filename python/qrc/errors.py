"""The exceptions of the qrc package.

Every error that the model or its data cause carries the positions qrc
prints (``file:line:col: message``); errors of the pipe to the ``qrc``
process are :class:`ServerError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional


@dataclass(frozen=True)
class Diagnostic:
    """One error or warning about a model, as ``qrc check --json`` gives it."""

    severity: str  # "error" or "warning"
    file: str
    line: int  # 1-based; 0 when the diagnostic is about the file as a whole
    column: int  # 1-based
    message: str

    @property
    def pos(self) -> str:
        """``file:line:col`` (``file`` alone without a line)."""
        if self.line <= 0:
            return self.file
        return f"{self.file}:{self.line}:{self.column}"

    def __str__(self) -> str:
        sev = "warning: " if self.severity == "warning" else ""
        return f"{self.pos}: {sev}{self.message}"

    @classmethod
    def _from_json(cls, d: dict) -> "Diagnostic":
        return cls(
            severity=d.get("severity", "error"),
            file=d.get("file", ""),
            line=int(d.get("line", 0)),
            column=int(d.get("column", 0)),
            message=d.get("message", ""),
        )


class QrcError(Exception):
    """The base of every qrc error."""


class ServerError(QrcError):
    """The ``qrc`` process could not be found, started or talked to."""


class ModelError(QrcError):
    """A model that does not parse, check or compile, or whose data cannot be
    loaded. ``diagnostics`` lists every error (and warning) with its
    position; ``file``, ``line``, ``column`` and ``message`` are the first
    error's. ``text`` renders them as ``qrc check`` does, with the source
    line and a caret."""

    def __init__(self, message: str, diagnostics: Optional[List[Diagnostic]] = None, text: str = ""):
        super().__init__(message)
        self.diagnostics = list(diagnostics or [])
        self.text = text
        errors = [d for d in self.diagnostics if d.severity == "error"] or self.diagnostics
        first = errors[0] if errors else None
        self.file = first.file if first else ""
        self.line = first.line if first else 0
        self.column = first.column if first else 0
        self.message = first.message if first else message

    @property
    def pos(self) -> str:
        """The first error's ``file:line:col``."""
        if self.line <= 0:
            return self.file
        return f"{self.file}:{self.line}:{self.column}"

    def __str__(self) -> str:
        if self.text:  # every diagnostic, with its source line and a caret
            return self.text.rstrip("\n")
        return super().__str__()


class RefusedError(ModelError):
    """The oracle asked for (or picked) refuses the model: the smooth oracle
    on a kink, the stochastic oracle on a biased mean, an equality where
    only inequalities are taken. The message says why and, where it is
    about a place in the model, the diagnostics give it."""


class DataError(QrcError, ValueError):
    """A data set given from Python that cannot be sent: a column of a type
    qrc does not take, a wrong shape."""


class OptionError(QrcError, ValueError):
    """A solve option (or start) that qrc solve refuses; the message names
    it as the flag of ``qrc solve`` (``--outer``), whose Python keyword is
    the same name with underscores (``outer=``)."""


def _error_from_json(e: dict) -> QrcError:
    kind = e.get("kind", "")
    msg = e.get("message", "")
    diags = [Diagnostic._from_json(d) for d in (e.get("diagnostics") or [])]
    text = e.get("text", "") or ""
    if kind == "model":
        return ModelError(msg, diags, text)
    if kind == "refused":
        return RefusedError(msg, diags, text)
    if kind == "options":
        return OptionError(msg)
    if kind == "data":
        return DataError(msg)
    return ServerError(msg)
