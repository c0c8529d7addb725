package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The two inputs that used to hang (docs/reliability.md): qrc eval of
// 100 000 indexed constraints (40 s to 5 min: one reverse pass over the
// whole program per constraint) and qrc plot of a 300 000-row trace (a
// minute of drawing). Both must finish within run1's minute; no time is
// asserted beyond that.
func TestFormerHangs(t *testing.T) {
	var tr strings.Builder
	tr.WriteString("method,series,cpu_seconds,wall_seconds,t,k,objective,infeasibility\n")
	for i := range 300000 {
		fmt.Fprintf(&tr, "iqrc,inner,%g,%g,1,%d,%g,%g\n", float64(i)*1e-3, float64(i)*1e-3, i, float64(i%1000)/1000, 1/float64(1+i%50))
	}
	dir := writeFiles(t, map[string]string{
		"many.qrc": "var x[10] in box(-1, 1)\nminimize sum(j in 1..10) x[j]\nsubject to\n    c[k in 1..100000]: x[1] + k * 1e-6 <= 1\n",
		"big.csv":  tr.String(),
	})
	r := run1(t, dir, "", "eval", "many.qrc")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "c[100000]  -0.9")

	r = run1(t, dir, "", "plot", "big.csv", "-o", "big.png")
	require.Equal(t, 0, r.code, r.stderr)
	info, err := os.Stat(filepath.Join(dir, "big.png"))
	require.NoError(t, err)
	assert.Greater(t, info.Size(), int64(1000))
}
