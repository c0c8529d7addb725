"""The live line in Jupyter: one display, updated in place (IPython is
faked here: Debian's Python has none)."""

import sys
import types

import qrc
from qrc import progress as qprogress
from test_data import BUDGET, observations


class FakeHandle:
    def __init__(self, log):
        self.log = log

    def update(self, obj, raw=False):
        self.log.append(("update", obj["text/plain"]))


def test_jupyter_display_updated_in_place(monkeypatch):
    log = []

    def display(obj, raw=False, display_id=False):
        assert raw and display_id
        log.append(("display", obj["text/plain"]))
        return FakeHandle(log)

    class ZMQInteractiveShell:  # the kernel's shell class, by name
        pass

    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: ZMQInteractiveShell()
    ipython_display = types.ModuleType("IPython.display")
    ipython_display.display = display
    ipython.display = ipython_display
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "IPython.display", ipython_display)
    assert qprogress._in_jupyter()

    m = qrc.parse(BUDGET, data={"obs": observations()}, params={"budget": 2.0})
    r = m.solve()  # progress=None: the live line, here Jupyter's
    assert r.status == "converged"
    assert log and log[0][0] == "display"
    assert all(kind == "update" for kind, _ in log[1:])  # one display, then updates
    assert all(text.startswith("qrc: ") for _, text in log)


def test_no_line_without_a_terminal(capsys):
    m = qrc.parse(BUDGET, data={"obs": observations()}, params={"budget": 2.0})
    m.solve()  # standard error is captured, not a terminal
    assert capsys.readouterr().err == ""
