package main_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The library names options (Options.Outer = 12); qrc prints the flags
// that set them, in the text report, the JSON result, the refusals and
// the notes, and never the library's names.
func TestCLIPrintsFlagNames(t *testing.T) {
	args := []string{"solve", "examples/phase.qrc", "--oracle", "switching", "--outer", "3", "--inner", "200"}
	r := qrc(t, "", args...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "raise --outer (e.g. --outer 12); more --inner iterations")
	assert.NotContains(t, r.stdout+r.stderr, "Options.")

	r = qrc(t, "", append(args, "--json", "--quiet")...)
	require.Equal(t, 0, r.code, r.stderr)
	var res struct{ Verdict string }
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
	assert.Contains(t, res.Verdict, "raise --outer (e.g. --outer 12)")

	r = qrc(t, "", "solve", "--oracle", "smooth", "examples/phase.qrc")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "qrc solve: --oracle smooth needs a differentiable model, and at examples/phase.qrc:7:26")
	assert.Contains(t, r.stderr, "(use --oracle bundle)")

	r = qrc(t, "", "solve", "--method", "penalty", "--theory", "examples/phase.qrc")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "qrc solve: --theory sets IQRC's parameters; --method penalty does not use them")

	m := writeModel(t, "far.qrc", "var x in box(-10, 10) = 0\nminimize x\nsubject to\n    ring: 1 - x^2 <= -1\n    tiny: x^2 <= 0.5\n")
	r = qrc(t, "", "solve", "--restarts", "1", "--seed", "3", m)
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stderr, "restart 1 of 1 from a perturbed start (scale 0.1, --seed 3)")
	assert.Contains(t, r.stdout, "another start (--start); 1 perturbed start(s) (--restarts, --seed 3) found none either")
	assert.NotContains(t, r.stdout+r.stderr, "Options.")
}
