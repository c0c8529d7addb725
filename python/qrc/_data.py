"""Data sets and parameters from Python values to what ``qrc serve`` takes.

A pandas DataFrame is sent as a table of named columns, which qrc makes
into a data set as it makes a CSV file with that header into one, with
the model's ``label``, ``drop`` and ``missing`` options: numeric columns
(floats, integers, booleans) as float64, exactly; NaN (or a missing value
of a nullable column) is a missing value; text and categorical columns as
categories, in order of first appearance (usable in ``where`` filters when
dropped). A 2-D numpy array or a scipy.sparse matrix is a feature matrix,
and a tuple ``(X, y)`` adds labels; they are the data set as given,
whatever the declaration's options (a set declared with libsvm is stored
sparse or dense by the LIBSVM loader's rule). A string or path is a file, read with the model's loader.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Tuple

import numpy as np

from .errors import DataError


def _is_dataframe(v: Any) -> bool:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        return False
    return isinstance(v, pd.DataFrame)


def _le_float64(a: Any) -> np.ndarray:
    return np.ascontiguousarray(a, dtype="<f8")


def table(name: str, df: Any) -> Tuple[dict, List[memoryview]]:
    """The frame request and payload of a DataFrame."""
    import pandas as pd
    from pandas.api import types as pdt

    n = len(df)
    if n == 0:
        raise DataError(f"data set {name}: the DataFrame has no rows")
    cols: List[dict] = []
    payload: List[memoryview] = []
    names = [str(c) for c in df.columns]
    if len(set(names)) != len(names):
        dup = sorted({c for c in names if names.count(c) > 1})
        raise DataError(f"data set {name}: column names appear twice: {', '.join(dup)}")
    for label, cname in zip(df.columns, names):
        s = df[label]
        if isinstance(s, pd.DataFrame):  # pragma: no cover - duplicate labels
            raise DataError(f"data set {name}: column {cname!r} appears twice")
        dtype = s.dtype
        if pdt.is_bool_dtype(dtype) or pdt.is_numeric_dtype(dtype) and not pdt.is_complex_dtype(dtype):
            if isinstance(dtype, pd.api.extensions.ExtensionDtype):
                v = s.to_numpy(dtype="float64", na_value=np.nan)
            else:
                v = s.to_numpy()
            cols.append({"name": cname, "kind": "float64"})
            payload.append(memoryview(_le_float64(v)).cast("B"))
        elif (
            pdt.is_object_dtype(dtype)
            or pdt.is_string_dtype(dtype)
            or isinstance(dtype, pd.CategoricalDtype)
        ):
            codes, uniques = pd.factorize(s, sort=False)  # order of appearance; missing -1
            levels = [str(u) for u in uniques]
            cols.append({"name": cname, "kind": "text", "levels": levels})
            codes = np.ascontiguousarray(codes + 1, dtype="<i4")
            if n % 2:  # every column of the payload is a multiple of 8 bytes
                codes = np.append(codes, np.int32(0)).astype("<i4")
            payload.append(memoryview(codes).cast("B"))
        else:
            raise DataError(
                f"data set {name}: column {cname!r} has dtype {dtype}, which qrc does not take "
                "(numbers, booleans, text or categories)"
            )
    return {"name": f"DataFrame {name}", "kind": "table", "rows": n, "columns": cols}, payload


def matrix(name: str, X: Any, y: Any = None) -> Tuple[dict, List[memoryview]]:
    """The frame request and payload of a feature matrix and labels."""
    X = np.asarray(X)
    if X.ndim != 2:
        raise DataError(f"data set {name}: the feature matrix must be 2-D, not of shape {X.shape}")
    if not (np.issubdtype(X.dtype, np.number) or X.dtype == bool):
        raise DataError(f"data set {name}: the feature matrix has dtype {X.dtype}, not numbers")
    rows, cols = X.shape
    if rows == 0 or cols == 0:
        raise DataError(f"data set {name}: the feature matrix is empty ({rows}x{cols})")
    payload = [memoryview(_le_float64(X)).cast("B")]
    req = {"name": f"array {name}", "kind": "matrix", "rows": rows, "cols": cols, "labels": y is not None}
    if y is not None:
        y = np.asarray(y)
        if y.shape != (rows,):
            raise DataError(f"data set {name}: the labels have shape {y.shape}, want ({rows},) for the {rows} rows of X")
        payload.append(memoryview(_le_float64(y)).cast("B"))
    return req, payload


def _is_sparse(v: Any) -> bool:
    sp = __import__("sys").modules.get("scipy.sparse")
    return sp is not None and sp.issparse(v)


def sparse(name: str, X: Any, y: Any = None) -> Tuple[dict, List[memoryview]]:
    """The frame request and payload of a scipy.sparse matrix (sent in CSR
    form, duplicates summed, indices sorted) and labels."""
    X = X.tocsr(copy=True)
    X.sum_duplicates()
    X.sort_indices()
    rows, cols = X.shape
    if rows == 0 or cols == 0:
        raise DataError(f"data set {name}: the feature matrix is empty ({rows}x{cols})")
    nnz = int(X.nnz)
    idx = np.ascontiguousarray(X.indices, dtype="<i4")
    if nnz % 2:  # every part of the payload is a multiple of 8 bytes
        idx = np.append(idx, np.int32(0)).astype("<i4")
    payload = [
        memoryview(np.ascontiguousarray(X.indptr, dtype="<i8")).cast("B"),
        memoryview(idx).cast("B"),
        memoryview(_le_float64(X.data)).cast("B"),
    ]
    req = {"name": f"sparse matrix {name}", "kind": "sparse", "rows": rows, "cols": cols, "nnz": nnz,
           "labels": y is not None}
    if y is not None:
        y = np.asarray(y)
        if y.shape != (rows,):
            raise DataError(f"data set {name}: the labels have shape {y.shape}, want ({rows},) for the {rows} rows of X")
        payload.append(memoryview(_le_float64(y)).cast("B"))
    return req, payload


def frame(name: str, value: Any) -> Tuple[dict, List[memoryview]]:
    """The frame of a data set value: a DataFrame, a 2-D array, a
    scipy.sparse matrix, or (X, y) with X either."""
    if _is_dataframe(value):
        return table(name, value)
    if isinstance(value, tuple):
        if len(value) != 2:
            raise DataError(f"data set {name}: a tuple must be (X, y)")
        if _is_sparse(value[0]):
            return sparse(name, value[0], value[1])
        return matrix(name, value[0], value[1])
    if _is_sparse(value):
        return sparse(name, value)
    if isinstance(value, np.ndarray):
        return matrix(name, value)
    raise DataError(
        f"data set {name}: give a pandas DataFrame, a 2-D numpy array, a tuple (X, y) or a file path, "
        f"not {type(value).__name__}"
    )


def is_path(value: Any) -> bool:
    return isinstance(value, (str, os.PathLike))


def _num(v: Any) -> str:
    f = float(v)
    if not np.isfinite(f):
        raise DataError(f"parameter value {v!r} is not a finite number")
    return repr(f)  # the shortest text that reads back to the same float64


def param_expr(name: str, value: Any) -> str:
    """The qrc expression of a parameter value: a number, a vector or a
    matrix (numpy or nested lists) exactly, or a string as an expression."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "1" if value else "0"
    a = np.asarray(value, dtype=float) if not np.isscalar(value) else None
    if a is None or a.ndim == 0:
        return _num(value)
    if a.ndim == 1:
        return "[" + ", ".join(_num(v) for v in a) + "]"
    if a.ndim == 2:
        return "[" + ", ".join("[" + ", ".join(_num(v) for v in row) + "]" for row in a) + "]"
    raise DataError(f"parameter {name}: a value of shape {a.shape}; give a number, a vector or a matrix")


def params(values: Dict[str, Any]) -> List[dict]:
    return [{"name": k, "expr": param_expr(k, v)} for k, v in values.items()]
