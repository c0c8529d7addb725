"""The Python package's overhead against qrc solve on one model and data.

    python3 python/tools/overhead.py MODEL.qrc DATASET FILE.csv [qrc solve flags...]

runs, one after the other, (1) qrc solve MODEL --data DATASET=FILE --json
with the flags, (2) the same solve from Python with the data as a pandas
DataFrame (read with float_precision="round_trip", not timed), and (3) from
Python with the data as the file path, and prints the wall-clock seconds of
each part and whether the three results agree bit for bit. docs/python.md
has a run on 10^6 rows.
"""

import json
import os
import re
import resource
import subprocess
import sys
import time

import pandas as pd

import qrc
from qrc import _data, _server


def server_cpu(srv):
    """The server process's CPU seconds (user + system) so far."""
    with open(f"/proc/{srv.proc.pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main(argv):
    model, name, path, *flags = argv
    binary = _server.find_binary()
    t, c = time.perf_counter(), children_cpu()
    p = subprocess.run([binary, "solve", model, "--data", f"{name}={path}", "--json", *flags],
                       capture_output=True, text=True)
    cli_total, cli_cpu = time.perf_counter() - t, children_cpu() - c
    cli = json.loads(p.stdout)
    m = re.search(r"loading the data and compiling: ([0-9.]+) s \(CPU ([0-9.]+) s\)", p.stderr)
    cli_load, cli_load_cpu = (float(m.group(1)), float(m.group(2))) if m else (float("nan"), float("nan"))
    print(f"qrc solve: {cli_total:.2f} s in all (CPU {cli_cpu:.2f} s), loading and compiling {cli_load:.2f} s "
          f"(CPU {cli_load_cpu:.2f} s), solve {cli['seconds']:.2f} s")
    for line in p.stderr.splitlines():
        if line.startswith("qrc solve:") and "t   seconds" not in line:
            print("   ", line[:160])

    opts = {}
    it = iter(flags)
    for f in it:
        opts[f.lstrip("-").replace("-", "_")] = next(it)

    t = time.perf_counter()
    df = pd.read_csv(path, float_precision="round_trip")
    read = time.perf_counter() - t
    print(f"pandas.read_csv: {read:.2f} s (not counted), {df.shape[0]} rows x {df.shape[1]} columns, "
          f"{df.memory_usage(index=False).sum() / 1e6:.0f} MB")

    srv = _server.server()
    t, c, sc = time.perf_counter(), own_cpu(), server_cpu(srv)
    req, payload = _data.frame(name, df)
    nbytes = sum(len(b) for b in payload)
    resp = srv.request({"op": "frame", "frame": req, "payload": nbytes}, payload)
    transfer = time.perf_counter() - t
    pcpu, scpu = own_cpu() - c, server_cpu(srv) - sc
    srv.request({"op": "free", "handle": resp["frame"]})
    print(f"  the DataFrame through the pipe: {transfer:.2f} s ({nbytes / 1e6:.0f} MB, {nbytes / 1e6 / transfer:.0f} MB/s), "
          f"CPU {pcpu:.2f} s in Python, {scpu:.2f} s in qrc serve")

    results = {}
    for how, value in (("DataFrame", df), ("file path", path)):
        t, c, sc = time.perf_counter(), own_cpu(), server_cpu(srv)
        mod = qrc.load(model, data={name: value})
        load = time.perf_counter() - t
        load_cpu = own_cpu() - c + server_cpu(srv) - sc
        r = mod.solve(progress=False, **opts)
        total = time.perf_counter() - t
        cpu = own_cpu() - c + server_cpu(srv) - sc
        results[how] = r
        print(f"python, data as a {how}: {total:.2f} s in all (CPU {cpu:.2f} s, qrc serve's and Python's), "
              f"load (send, check, compile) {load:.2f} s (CPU {load_cpu:.2f} s), solve {r.seconds:.2f} s; against qrc solve "
              f"{total - cli_total:+.2f} s, CPU {cpu - cli_cpu:+.2f} s")
        del mod
    same = all(
        r.json["variables"] == cli["variables"] and r.json["objective"] == cli["objective"]
        and r.status == cli["status"] for r in results.values()
    )
    print(f"results bit for bit the same as qrc solve's: {same} (status {cli['status']}, objective {cli['objective']!r})")


if __name__ == "__main__":
    main(sys.argv[1:])
