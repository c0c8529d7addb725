# %% [markdown]
# # Fair logistic regression on Adult, from a DataFrame
#
# The parity model of `examples/adult.qrc`: logistic regression whose soft
# positive rates for men and women differ by at most `delta`. The data come
# from a pandas DataFrame — no file is written — and each tighter `delta` is
# solved warm from the last solution. Run it as a script
# (`python3 python/examples/adult_fairness.py`) or open it as a notebook
# (adult_fairness.ipynb has the same cells). It reads `../shared/data/adult.csv`
# when it is there (README.md, "Data sets"), else the shipped stand-in
# `examples/data/adult.csv` (1000 rows); `QRC_ADULT=path` chooses another file.

# %%
import os
from pathlib import Path

import numpy as np
import pandas as pd

import qrc

here = Path(globals().get("__file__", "python/examples/adult_fairness.py")).resolve()
repo = here.parents[2]
real = repo.parent / "shared" / "data" / "adult.csv"
path = Path(os.environ.get("QRC_ADULT") or (real if real.exists() else repo / "examples" / "data" / "adult.csv"))
people = pd.read_csv(path, float_precision="round_trip")  # round_trip: the floats qrc's own reader gives
print(f"{path}: {len(people)} rows, {people.shape[1]} columns")

# %% [markdown]
# The model declares `data people = csv(..., label = "income", drop = ["male", "white"])`;
# the DataFrame given for `people` takes the place of the file, with the same
# label and dropped columns, and `people.male` in the filters is the DataFrame's
# column.

# %%
model = qrc.load(repo / "examples" / "adult.qrc", data={"people": people}, params={"delta": 0.2})
budget = float(os.environ.get("QRC_EXAMPLE_TIME_LIMIT", "60"))  # seconds a solve may take; 0: no limit
result = model.solve(time_limit=budget)  # a live progress line in Jupyter and on a terminal
print(repr(result))
print(result.certificate)
result.constraints

# %% [markdown]
# The classifier's hard accuracy and positive rates by group, from the
# weights and the DataFrame:

# %%
features = people.drop(columns=["income", "male", "white"]).to_numpy()


def metrics(res):
    score = features @ res["x"]
    pos = score > 0
    men = people["male"].to_numpy() == 1
    return {
        "status": res.status,
        "loss": res.objective,
        "soft gap": res.constraints.loc["parity_mf", "value"] + model.params["delta"],
        "accuracy": np.mean(np.sign(score) == people["income"].to_numpy()),
        "rate men": pos[men].mean(),
        "rate women": pos[~men].mean(),
        "outer": res.outer_iterations,
    }


metrics(result)

# %% [markdown]
# Tighter gaps, each solve warm-started from the one before (`model.set`
# changes the parameter and keeps the last result as the next start):

# %%
rows = []
for delta in [0.2, 0.1, 0.05, 0.02]:
    res = model.set(delta=delta).solve(time_limit=budget, progress=False)
    rows.append({"delta": delta, **metrics(res)})
table = pd.DataFrame(rows).set_index("delta")
print(table.to_string())

# %% [markdown]
# Each solve's trace is a DataFrame too (objective and infeasibility of
# the outer iterations against seconds):

# %%
res.trace[["t", "phase", "objective", "infeasibility"]].tail()
