package main_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckRefusesEmptyInnerSet: a mean whose index set is empty for one
// value of the enclosing index is refused by qrc check, at the mean, naming
// the value (exit 1: the model has errors); before, check called the model valid and only solve refused it.
func TestCheckRefusesEmptyInnerSet(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.qrc")
	src := "var x[3] in box(-1, 1)\nminimize sum(i in 1..3) mean(j in 1..3 where j > i) x[j]\n"
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	for _, cmd := range []string{"check", "solve"} {
		r := qrc(t, "", cmd, path)
		assert.Equal(t, 1, r.code, "%s: %s", cmd, r.stderr)
		assert.Contains(t, r.stderr, path+":2:25: mean over an empty set when i = 3\n", cmd)
		assert.NotContains(t, r.stderr, "internal error", cmd)
	}
}
