package point

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/modelfile"
)

const modelSrc = `var t in box(-5, 5) = 1.5
var x[3] in box(-1, 1) = 0.25
var W[2, 3] in ball(1, rows)
minimize t + norm1(x) + norm2(W[1]) + norm2(W[2])
`

func model(t *testing.T) *check.Model {
	t.Helper()
	m, _, diags := modelfile.LoadSource("m.qrc", []byte(modelSrc), check.Options{})
	require.NotNil(t, m, diags.Error())
	require.Equal(t, 10, m.NumScalars)
	return m
}

func TestStart(t *testing.T) {
	m := model(t)
	assert.Equal(t, []float64{1.5, 0.25, 0.25, 0.25, 0, 0, 0, 0, 0, 0}, Start(m))
}

func TestRoundTrip(t *testing.T) {
	m := model(t)
	x := []float64{-3.25, 0.1, -1e-7, 1.0 / 3, 1, 2, 3, 4, math.Pi, -0.0}
	out, err := Marshal(m, x)
	require.NoError(t, err)
	assert.Equal(t, `{
  "variables": {
    "t": -3.25,
    "x": [0.1, -1e-07, 0.3333333333333333],
    "W": [
      [1, 2, 3],
      [4, 3.141592653589793, 0]
    ]
  }
}
`, string(out))
	got, err := Parse("p.json", out, m)
	require.NoError(t, err)
	assert.Equal(t, x, got) // bit for bit (-0 compares equal to 0)

	// Write to a file and Read it back.
	path := filepath.Join(t.TempDir(), "p.json")
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, m, x))
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	got, err = Read(path, m)
	require.NoError(t, err)
	assert.Equal(t, x, got)
}

func TestVariablesEmbeds(t *testing.T) {
	m := model(t)
	x := Start(m)
	type result struct {
		Status    string    `json:"status"`
		Variables Variables `json:"variables"`
		Iters     int       `json:"iterations"`
	}
	out, err := json.Marshal(result{"stationary", Variables{Model: m, X: x}, 12})
	require.NoError(t, err)
	assert.Equal(t, `{"status":"stationary","variables":{"t":1.5,"x":[0.25,0.25,0.25],"W":[[0,0,0],[0,0,0]]},"iterations":12}`, string(out))
	// A result file is a point file: other fields are ignored.
	got, err := Parse("result.json", out, m)
	require.NoError(t, err)
	assert.Equal(t, x, got)
}

func TestMarshalNonFinite(t *testing.T) {
	m := model(t)
	x := Start(m)
	x[8] = math.NaN()
	_, err := Marshal(m, x)
	assert.EqualError(t, err, "point: W[2, 2] is NaN, which JSON cannot represent")
	x[8] = 0
	x[0] = math.Inf(-1)
	_, err = json.Marshal(Variables{Model: m, X: x})
	assert.ErrorContains(t, err, "point: t is -Inf")
	_, err = Marshal(m, x[:3])
	assert.ErrorContains(t, err, "3 values for a model with 10 scalar variables")
}

func TestParseErrors(t *testing.T) {
	m := model(t)
	cases := []struct{ name, src, want string }{
		{"syntax", "{\n  \"variables\": {\n    \"t\": 1,,\n", "p.json:3:12: invalid JSON: invalid character ',' looking for beginning of object key string"},
		{"not object", `[1, 2]`, `p.json: want a JSON object with a "variables" field, got array`},
		{"null", `null`, `p.json: want a JSON object with a "variables" field, got null`},
		{"no variables", `{"x": [1, 2, 3]}`, `p.json: no "variables" field (want an object mapping each variable's name to its value)`},
		{"variables not object", `{"variables": [1]}`, `p.json: "variables" is a vector of length 1, want an object mapping each variable's name to its value`},
		{"unknown and missing", `{"variables": {"t": 0, "x": [0, 0, 0], "W2": [[0, 0, 0], [0, 0, 0]], "zz": 1}}`,
			"p.json: unknown variable \"W2\" (did you mean \"W\"?)\n" +
				"p.json: unknown variable \"zz\"\n" +
				"p.json: missing variable \"W\" (2×3 matrix)"},
		{"wrong matrix shape", `{"variables": {"t": 0, "x": [0, 0, 0], "W": [[0, 0], [0, 0]]}}`,
			`p.json: variable "W": want a 2×3 matrix (an array of rows), got a 2×2 matrix`},
		{"ragged", `{"variables": {"t": 0, "x": [0, 0, 0], "W": [[0, 0, 0], [0, 0]]}}`,
			`p.json: variable "W": want a 2×3 matrix (an array of rows), got rows of different lengths (row 1 has 3, row 2 has 2)`},
		{"flat matrix", `{"variables": {"t": 0, "x": [0, 0, 0], "W": [0, 0, 0, 0, 0, 0]}}`,
			`p.json: variable "W": want a 2×3 matrix (an array of rows), got a vector of length 6`},
		{"vector length", `{"variables": {"t": 0, "x": [0, 0], "W": [[0, 0, 0], [0, 0, 0]]}}`,
			`p.json: variable "x": want a vector of length 3 (an array), got a vector of length 2`},
		{"scalar as array", `{"variables": {"t": [1], "x": [0, 0, 0], "W": [[0, 0, 0], [0, 0, 0]]}}`,
			`p.json: variable "t": want a scalar (a number), got a vector of length 1`},
		{"string element", `{"variables": {"t": 1, "x": [0, "a", 0], "W": [[0, 0, 0], [0, null, 0]]}}`,
			"p.json: variable \"x\": want a vector of length 3 (an array), got an array whose element 2 is a string\n" +
				"p.json: variable \"W\": want a 2×3 matrix (an array of rows), got an array of rows whose element [2][2] is null"},
		{"null scalar", `{"variables": {"t": null, "x": [0, 0, 0], "W": [[0, 0, 0], [0, 0, 0]]}}`,
			`p.json: variable "t": want a scalar (a number), got null`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x, err := Parse("p.json", []byte(c.src), m)
			assert.Nil(t, x)
			require.Error(t, err)
			assert.Equal(t, c.want, err.Error())
			var pe *Error
			assert.ErrorAs(t, err, &pe)
		})
	}
}

func TestReadMissingFile(t *testing.T) {
	m := model(t)
	path := filepath.Join(t.TempDir(), "none.json")
	_, err := Read(path, m)
	assert.EqualError(t, err, path+": cannot read point: no such file or directory")
}

func TestCoordinate(t *testing.T) {
	m := model(t)
	names := make([]string, m.NumScalars)
	for j := range names {
		names[j] = Coordinate(m, j)
	}
	assert.Equal(t, []string{"t", "x[1]", "x[2]", "x[3]", "W[1, 1]", "W[1, 2]", "W[1, 3]", "W[2, 1]", "W[2, 2]", "W[2, 3]"}, names)
	assert.Equal(t, "", Coordinate(m, 10))
}
