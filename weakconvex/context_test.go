package weakconvex

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
)

// A cancelled context stops the analysis of a model over data rows with
// the context's error, and an open one gives the same report as Analyze.
func TestAnalyzeContext(t *testing.T) {
	m, _, diags := check.LoadFile("../examples/npc.qrc", check.Options{})
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
