package main_test

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServe drives qrc serve through the binary with a script of
// requests: the version, a model with an error (its position), a model
// solved, an unknown op, and the end of the input ending the server.
func TestServe(t *testing.T) {
	reqs := []string{
		`{"id": 1, "op": "hello"}`,
		`{"id": 2, "op": "load", "source": "param lambda = 1\nvar x[3] in ball(lamda)\nminimize norm2(x)\n", "name": "bad.qrc"}`,
		`{"id": 3, "op": "load", "source": "var x[2] in box(-2, 2)\nminimize (x[1] - 1)^2 + (x[2] + 0.5)^2\n"}`,
		`{"id": 4, "op": "solve", "model": "m1", "flags": ["--eps=1e-6"], "progress": 0.5}`,
		`{"id": 5, "op": "solve", "model": "m1", "flags": ["--out=x.json"]}`,
		`{"id": 6, "op": "frobnicate"}`,
	}
	r := qrc(t, strings.Join(reqs, "\n")+"\n", "serve")
	require.Equal(t, 0, r.code, r.stderr)
	final := map[int]map[string]any{}
	events := 0
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), sc.Text())
		if _, ok := m["event"]; ok {
			events++
			continue
		}
		final[int(m["id"].(float64))] = m
	}
	require.Len(t, final, 6)
	assert.Equal(t, true, final[1]["ok"])
	assert.EqualValues(t, 1, final[1]["protocol"])
	assert.Contains(t, final[1]["version"], "qrc ")

	e := final[2]["error"].(map[string]any)
	assert.Equal(t, "model", e["kind"])
	d := e["diagnostics"].([]any)[0].(map[string]any)
	assert.Equal(t, "bad.qrc", d["file"])
	assert.EqualValues(t, 2, d["line"])
	assert.EqualValues(t, 18, d["column"])
	assert.Contains(t, e["text"], "^^^^^")

	assert.Equal(t, "m1", final[3]["model"])
	res := final[4]["result"].(map[string]any)
	assert.Equal(t, "converged", res["status"])
	x := res["variables"].(map[string]any)["x"].([]any)
	assert.InDelta(t, 1, x[0], 1e-5) // the minimum of the box-free quadratic
	assert.InDelta(t, -0.5, x[1], 1e-5)
	assert.Contains(t, final[4]["trace"], "seconds,t,phase")
	assert.Positive(t, events, "no progress event")

	assert.Equal(t, "options", final[5]["error"].(map[string]any)["kind"])
	assert.Contains(t, final[5]["error"].(map[string]any)["message"], "--out")
	assert.Contains(t, final[6]["error"].(map[string]any)["message"], `unknown op "frobnicate"`)
}
