"""Shared fixtures: the qrc binary the tests run, the repository, the data.

The binary is $QRC_BINARY (the Go test that runs these tests, package
python, builds one and sets it), or one built from this clone with go;
without either the tests skip. The real data sets are looked for in
$QRC_SHARED_DATA, else in ../shared/data beside the clone (README.md,
"Data sets"); tests that need them skip when they are absent.
"""

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _binary():
    env = os.environ.get("QRC_BINARY")
    if env:
        return env
    from qrc import _server

    try:
        return str(_server.build(REPO))
    except Exception as e:  # no go toolchain
        pytest.skip(f"no qrc binary: set QRC_BINARY or install go ({e})", allow_module_level=True)


@pytest.fixture(scope="session")
def qrc_binary():
    b = _binary()
    os.environ["QRC_BINARY"] = b
    return b


@pytest.fixture(scope="session", autouse=True)
def _use_binary(qrc_binary):
    yield


@pytest.fixture(scope="session")
def repo():
    return REPO


def shared_data(name):
    base = os.environ.get("QRC_SHARED_DATA") or str(REPO.parent / "shared" / "data")
    path = Path(base) / name
    if not path.exists():
        pytest.skip(f"{path} is absent (the real data sets are not shipped; README.md, section \"Data sets\")")
    return path


def run_cli(binary, *args, cwd=REPO):
    """qrc with args; returns (exit code, stdout, stderr)."""
    p = subprocess.run([binary, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr
