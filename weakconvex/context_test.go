package weakconvex

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/modelfile"
)

// A cancelled context stops the analysis of a model over data rows with
// the context's error, and an open one gives the same report as Analyze.
func TestAnalyzeContext(t *testing.T) {
	m, _, diags := modelfile.Load("../examples/npc.qrc", check.Options{})
	require.NotNil(t, m, "%v", diags)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := AnalyzeContext(ctx, m)
	assert.ErrorIs(t, r.Err, context.Canceled)
	assert.False(t, r.Weak)

	full := Analyze(m)
	require.NoError(t, full.Err)
	again := AnalyzeContext(context.Background(), m)
	require.NoError(t, again.Err)
	assert.Equal(t, full.Rho, again.Rho)
	assert.Equal(t, full.M, again.M)
}

// On a data set too large to analyse, the analysis gives up after its
// first estimateAfter rows instead of working up to maxWork (half a minute
// on 10^6 rows): npc.qrc costs about 317 elements per row (2 378 977 on
// pendigits.scale's 7494 rows), so on 400 000 rows it would need about
// 1.3e8 elements, more than twice maxWork.
func TestAnalyzeGivesUpEarly(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 400 000-row data file")
	}
	path := filepath.Join(t.TempDir(), "big.svm")
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 400_000 {
		fmt.Fprintf(w, "%d", 1+i%10)
		for j := 1; j <= 16; j++ {
			fmt.Fprintf(w, " %d:%.3f", j, rng.Float64())
		}
		w.WriteByte('\n')
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	m, _, diags := modelfile.Load("../examples/npc.qrc", check.Options{Data: []check.Assign{{Name: "train", Value: path}}})
	require.NotNil(t, m, "%v", diags)
	r := Analyze(m)
	require.Error(t, r.Err)
	assert.Contains(t, r.Err.Error(), "too large to analyse")
	assert.Contains(t, r.Err.Error(), fmt.Sprintf("over its 400000 data rows, estimated from the first %d;", estimateFirst))
	assert.False(t, r.Weak)
}
