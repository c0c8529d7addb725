package main_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// --finish takes rows or rounds, and rounds only with the dynamic oracle
// and a model with one data set, each refusal saying so.
func TestFinishRefusals(t *testing.T) {
	r := qrc(t, "", "solve", "--finish", "last", "--oracle", "dynamic", "examples/npc.qrc")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `qrc solve: --finish must be rows or rounds, not "last"`)

	r = qrc(t, "", "solve", "--finish", "rounds", "examples/npc.qrc")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "qrc solve: --finish rounds goes with --oracle dynamic")

	m := writeModel(t, "nodata.qrc", "var x in box(-1, 1) = 0\nminimize x^2\n")
	r = qrc(t, "", "solve", "--finish", "rounds", "--oracle", "dynamic", m)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "qrc solve: --finish rounds needs a model with exactly one data set, not 0")
}
