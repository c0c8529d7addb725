package jsonenc

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type probePoint struct {
	Objective     float64 `json:"objective"`
	Infeasibility float64 `json:"infeasibility"`
	Outer         int     `json:"outer"`
}

type jsonProbe struct {
	A     float64            `json:"a"`
	B     *float64           `json:"b"`
	C     []float64          `json:"c,omitempty"`
	D     string             `json:"d,omitempty"`
	E     []probePoint       `json:"e"`
	F     map[string]float64 `json:"f"`
	G     int                `json:"-"`
	H     bool               `json:"h"`
	I     *probePoint        `json:"i"`
	J     []string           `json:"j,omitempty"`
	K     string             `json:"k"` // "<=" must stay as it is
	inner int
}

// For finite values Write writes exactly what encoding/json does
// (with SetEscapeHTML(false) and two-space indentation).
func TestWriteJSONMatchesEncodingJSON(t *testing.T) {
	one := 1.5
	v := jsonProbe{A: 2, B: &one, E: []probePoint{{1, 0, 3}}, F: map[string]float64{"z": 1, "a": 2}, G: 7, H: true,
		J: []string{}, K: "x <= 1", inner: 3}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	var got bytes.Buffer
	require.NoError(t, Write(&got, v))
	assert.Equal(t, want.String(), got.String())
}

// Non-finite numbers become strings, wherever they are.
func TestWriteJSONNonFinite(t *testing.T) {
	inf := math.Inf(1)
	v := jsonProbe{A: math.NaN(), B: &inf, C: []float64{1, math.Inf(-1)}, E: []probePoint{{math.NaN(), 0, 1}}}
	var got bytes.Buffer
	require.NoError(t, Write(&got, v))
	var back map[string]any
	require.NoError(t, json.Unmarshal(got.Bytes(), &back), got.String())
	assert.Equal(t, "NaN", back["a"])
	assert.Equal(t, "Infinity", back["b"])
	assert.Equal(t, []any{1.0, "-Infinity"}, back["c"])
	assert.Equal(t, "NaN", back["e"].([]any)[0].(map[string]any)["objective"])
}
