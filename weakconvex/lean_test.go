package weakconvex

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLean: the analysis of large data lowers GOGC to leanPercent while it
// runs and restores it after, and leaves a lower setting, or the
// collector off, as it is.
func TestLean(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, tc := range []struct{ before, during int }{
		{100, leanPercent},
		{400, leanPercent},
		{10, 10},
		{leanPercent, leanPercent},
		{-1, -1},
	} {
		debug.SetGCPercent(tc.before)
		restore := lean()
		require.Equal(t, tc.during, debug.SetGCPercent(tc.during), "GOGC %d during", tc.before)
		restore()
		require.Equal(t, tc.before, debug.SetGCPercent(tc.before), "GOGC %d after", tc.before)
	}
}
