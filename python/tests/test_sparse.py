"""A LIBSVM data set from a scipy.sparse matrix (or a dense array) gives
the result qrc solve gives on the file, bit for bit."""

import json

import numpy as np
import pytest

import qrc
from conftest import run_cli
from test_cli_agreement import assert_same_result


def read_libsvm(path):
    """A LIBSVM file as (CSR matrix, labels), written here from the format:
    "label idx:value ...", 1-based indices, d the largest index."""
    sparse = pytest.importorskip("scipy.sparse")
    rows, cols, vals, y = [], [], [], []
    for i, line in enumerate(open(path)):
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        y.append(float(line[0]))
        for f in line[1:]:
            j, v = f.split(":")
            rows.append(len(y) - 1)
            cols.append(int(j) - 1)
            vals.append(float(v))
    X = sparse.csr_matrix((vals, (rows, cols)), shape=(len(y), max(cols) + 1))
    return X, np.array(y)


def test_np_model_from_sparse_matches_cli(qrc_binary, repo):
    code, out, err = run_cli(qrc_binary, "solve", "examples/np.qrc", "--json", "--quiet")
    assert code == 0, err
    cli = json.loads(out)
    X, y = read_libsvm(repo / "examples" / "data" / "a9a.svm")
    m = qrc.load(repo / "examples" / "np.qrc", data={"test": (X, y)})
    assert m.summary["data"][0]["storage"] == "sparse"  # as qrc check says of the file
    assert_same_result(m.solve(progress=False), cli)
    # a dense array of the same rows is stored as the file's loader stores them
    dense = qrc.load(repo / "examples" / "np.qrc", data={"test": (X.toarray(), y)})
    assert dense.summary["data"][0]["storage"] == "sparse"
    assert_same_result(dense.solve(progress=False), cli)
