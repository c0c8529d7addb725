package check_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/lang"
)

// load parses and checks a model file.
func load(t *testing.T, path string, opts check.Options) (*check.Model, error) {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	f, errs := lang.Parse(path, src)
	if errs != nil {
		return nil, errs
	}
	m, diags := check.Check(f, opts)
	return m, diags.Err()
}

func TestExamplesCheck(t *testing.T) {
	m, err := load(t, filepath.Join("..", "examples", "npc.qrc"), check.Options{})
	require.NoError(t, err)
	require.Len(t, m.Vars, 1)
	assert.Equal(t, check.Shape{10, 16}, m.Vars[0].Shape)
	assert.Equal(t, 160, m.NumScalars)
	require.Len(t, m.Constraints, 9)
	assert.Equal(t, "cap[2]", m.Constraints[0].Name)
	assert.Equal(t, "cap[10]", m.Constraints[8].Name)
	means := check.Means(m.Objective.Expr)
	require.Len(t, means, 1)
	assert.Equal(t, "train", means[0].Data.Name)
	assert.Len(t, means[0].Rows, 300)
	for _, d := range m.Diagnostics {
		t.Log(d)
	}
}
