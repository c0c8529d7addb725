"""Writes a notebook (.ipynb, nbformat 4) with the cells of a script in
the percent format ("# %%" code cells, "# %% [markdown]" text cells):

    python3 python/tools/py2ipynb.py python/examples/adult_fairness.py

writes python/examples/adult_fairness.ipynb; the tests check that the two
have the same cells (python/tests/test_example.py).
"""

import json
import sys
from pathlib import Path


def cells(text):
    """The (kind, source) cells of a percent-format script."""
    out = []
    kind, lines = None, []

    def flush():
        if kind is not None:
            src = "\n".join(lines).strip("\n")
            if kind == "markdown":
                src = "\n".join(l[2:] if l.startswith("# ") else l.lstrip("#") for l in src.splitlines())
            out.append((kind, src))

    for line in text.splitlines():
        if line.startswith("# %%"):
            flush()
            kind, lines = ("markdown" if "[markdown]" in line else "code"), []
        else:
            lines.append(line)
    flush()
    return out


def notebook(text):
    nb_cells = []
    for kind, src in cells(text):
        c = {"cell_type": kind, "metadata": {}, "source": src.splitlines(keepends=True)}
        if kind == "code":
            c.update(execution_count=None, outputs=[])
        nb_cells.append(c)
    return {
        "cells": nb_cells,
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                     "language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


if __name__ == "__main__":
    src = Path(sys.argv[1])
    src.with_suffix(".ipynb").write_text(json.dumps(notebook(src.read_text()), indent=1) + "\n")
