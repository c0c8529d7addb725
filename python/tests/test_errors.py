"""Errors are exceptions carrying file:line:col and the message."""

import numpy as np
import pandas as pd
import pytest

import qrc

BAD_NAME = "param lambda = 1\nvar x[3] in ball(lamda)\nminimize norm2(x)\n"


def test_unknown_name_position():
    with pytest.raises(qrc.ModelError) as info:
        qrc.parse(BAD_NAME, name="bad.qrc")
    e = info.value
    assert (e.file, e.line, e.column) == ("bad.qrc", 2, 18)
    assert e.pos == "bad.qrc:2:18"
    assert e.message == 'unknown name "lamda" (did you mean "lambda"?)'
    assert str(e).startswith('bad.qrc:2:18: unknown name "lamda"')
    assert "^^^^^" in e.text  # the caret under the name, as qrc check prints it


def test_syntax_error_in_a_file(tmp_path):
    f = tmp_path / "m.qrc"
    f.write_text("var x\n\nminimize (x + \n")
    with pytest.raises(qrc.ModelError) as info:
        qrc.load(f)
    e = info.value
    assert e.file == str(f)
    assert e.line == 4 or e.line == 3
    assert "syntax error" in e.message


def test_every_error_is_listed():
    src = "var x[2]\nminimize y + z\n"
    with pytest.raises(qrc.ModelError) as info:
        qrc.parse(src)
    errs = [d for d in info.value.diagnostics if d.severity == "error"]
    assert [(d.line, d.column) for d in errs] == [(2, 10), (2, 14)]
    assert all(d.file == "<string>" for d in errs)


def test_parameter_expression_error():
    with pytest.raises(qrc.ModelError) as info:
        qrc.parse("param r = 1\nvar x\nminimize (x - r)^2\n", params={"r": "3 +"})
    e = info.value
    assert e.file == "value of param r"
    assert e.line == 1 and e.column == 4
    with pytest.raises(qrc.ModelError) as info:
        qrc.parse("param r = 1\nvar x\nminimize (x - r)^2\n", params={"nosuch": 2})
    assert 'no parameter "nosuch"' in info.value.message


def test_data_error_at_the_declaration():
    src = 'data D = csv("d.csv", label = "y")\nvar w[D.d]\nminimize mean(i in D) (dot(D.X[i], w) - D.y[i])^2\n'
    df = pd.DataFrame({"a": [1.0, 2.0], "b": [0.5, 0.25]})  # no column y
    with pytest.raises(qrc.ModelError) as info:
        qrc.parse(src, data={"D": df})
    e = info.value
    assert e.line == 1 and e.column > 1
    assert 'no label column "y"' in e.message


def test_bad_option():
    m = qrc.parse("var x in box(-1, 1)\nminimize x^2\n")
    with pytest.raises(qrc.OptionError) as info:
        m.solve(oracle="nosuch", progress=False)
    assert "--oracle" in str(info.value)
    with pytest.raises(qrc.OptionError):
        m.solve(no_such_option=3, progress=False)
    # the server is still there
    assert m.solve(progress=False).status == "converged"


def test_refusal():
    m = qrc.parse("var x[2] in box(-2, 2)\nminimize abs(x[1]) + x[2]^2\n", name="k.qrc")
    with pytest.raises(qrc.RefusedError) as info:
        m.solve(oracle="smooth", progress=False)
    assert "k.qrc:2:10" in str(info.value)


def test_bad_data_value():
    with pytest.raises(qrc.DataError):
        qrc.parse("var x\nminimize x^2\n", data={"D": [1, 2, 3]})
    with pytest.raises(qrc.DataError):
        qrc.parse("var x\nminimize x^2\n", data={"D": (np.zeros((3, 2)), np.zeros(4))})


def test_numerical_error_position():
    m = qrc.parse("var x[2] in box(-1, 1) = [-0.5, 1]\nminimize log(x[1]) + x[2]\n", name="n.qrc")
    r = m.solve(progress=False)
    assert r.status == "numerical_error"
    assert r.error.startswith("n.qrc:2:10:")


def test_binary_without_serve(tmp_path, monkeypatch):
    from qrc import _server

    fake = tmp_path / "qrc"
    fake.write_text("#!/bin/sh\necho 'qrc: unknown command \"serve\"' >&2\nexit 2\n")
    fake.chmod(0o755)
    monkeypatch.setenv("QRC_BINARY", str(fake))
    with pytest.raises(qrc.ServerError) as info:
        _server.Server()
    assert "is it a qrc that has 'qrc serve'?" in str(info.value)
    monkeypatch.setenv("QRC_BINARY", str(tmp_path / "nosuch"))
    with pytest.raises(qrc.ServerError) as info:
        _server.find_binary()
    assert "not an executable file" in str(info.value)
