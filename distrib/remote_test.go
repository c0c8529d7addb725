package distrib

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/modelfile"
	"github.com/qrc-lang/qrc/problem"
	"github.com/qrc-lang/qrc/solve"
)

// npcData writes 20000 rows shaped like examples/gen's large set (16
// features in [0, 1] around class means in [0.2, 0.8], noise 0.18, 10
// classes) as a LIBSVM file, once per test binary.
func npcData(t *testing.T) string {
	t.Helper()
	npcOnce.Do(func() {
		dir, err := os.MkdirTemp("", "distrib-npc")
		if err != nil {
			npcErr = err
			return
		}
		r := rand.New(rand.NewPCG(18, 33))
		var means [10][16]float64
		for k := range means {
			for j := range means[k] {
				means[k][j] = 0.2 + 0.6*r.Float64()
			}
		}
		var b strings.Builder
		for range 20000 {
			k := r.IntN(10)
			fmt.Fprintf(&b, "%d", k+1)
			for j, mu := range means[k] {
				fmt.Fprintf(&b, " %d:%.4f", j+1, min(max(mu+0.18*r.NormFloat64(), 1e-4), 1))
			}
			b.WriteByte('\n')
		}
		npcPath = filepath.Join(dir, "npc.svm")
		npcErr = os.WriteFile(npcPath, []byte(b.String()), 0o644)
	})
	require.NoError(t, npcErr)
	return npcPath
}

var (
	npcOnce sync.Once
	npcPath string
	npcErr  error
)

// sampleProblem returns npc.qrc's problem on generated rows that
// SampleRows keeps at frac (the coordinator's side of a distributed solve)
// and a FullPass over all rows computed in memory by the ordinary program
// (the workers' side), counting its calls.
func sampleProblem(t *testing.T, frac float64) (*solve.Problem, *check.Model, solve.FullPass, *int, int) {
	t.Helper()
	whole := load(t, "../examples/npc.qrc", "train", npcData(t))
	rows, err := SampleRows(whole.Data[0].Set, 5, 0, frac)
	require.NoError(t, err)
	sample, err := data.Concat("sample", []*data.Set{rows.Set("sample")})
	require.NoError(t, err)
	m, _, diags := modelfile.Load("../examples/npc.qrc", check.Options{Sets: map[string]*data.Set{"train": sample}})
	require.NoError(t, diags.Err())
	prog, err := autodiff.Compile(m)
	require.NoError(t, err)
	p := problem.New(m, prog, problem.Options{})
	full, err := autodiff.Compile(whole)
	require.NoError(t, err)
	calls := 0
	pass := func(x []float64) ([]float64, [][]float64, error) {
		calls++
		nf := len(full.Functions())
		vals := make([]float64, nf)
		if err := full.Eval(x, vals); err != nil {
			return nil, nil, err
		}
		grads := make([][]float64, nf)
		for f := range grads {
			grads[f] = make([]float64, full.NumVars())
		}
		return vals, grads, full.Jacobian(grads)
	}
	return p, m, pass, &calls, whole.Data[0].Set.N()
}

// A solve whose data are elsewhere: rounds on a 30% sample anchored at full
// passes end at a point whose reported values are the full data's (to
// 1e-12), feasible on all rows, with an objective within 1e-3 relative of
// the dynamic solve on all rows in memory (both stop within Eps 1e-3 of
// stationarity), in a handful of passes.
func TestRemoteSolve(t *testing.T) {
	if raceEnabled {
		t.Skip("two solves take minutes under the race detector; TestRemoteSolveFailedPass runs the remote driver there")
	}
	p, _, pass, calls, rows := sampleProblem(t, 0.3)
	x0 := make([]float64, p.N)
	res, err := solve.Minimize(context.Background(), p, x0, solve.Settings{Oracle: &solve.DynamicOracle{FullPass: pass, FullRows: rows}, Eps: 1e-3})
	t.Logf("%v %v %d passes", res.Status, res.Objective, *calls)
	require.NoError(t, err)
	assert.Equal(t, solve.Converged, res.Status, res.NoCertificate)
	vals, _, err := pass(res.X)
	require.NoError(t, err)
	for f, v := range vals {
		assert.LessOrEqual(t, math.Abs(res.F[f]-v), 1e-12*math.Max(1, math.Abs(v)))
	}
	assert.Equal(t, vals[0], res.Objective)
	assert.LessOrEqual(t, res.Infeasibility, 1e-3)
	assert.LessOrEqual(t, *calls, 2+solve.RemoteRounds)
	assert.NotEmpty(t, res.Stages)

	whole := load(t, "../examples/npc.qrc", "train", npcData(t))
	prog, err := autodiff.Compile(whole)
	require.NoError(t, err)
	wp := problem.New(whole, prog, problem.Options{})
	ref, err := solve.Minimize(context.Background(), wp, make([]float64, wp.N), solve.Settings{Oracle: solve.Dynamic, Eps: 1e-3})
	require.NoError(t, err)
	require.Equal(t, solve.Converged, ref.Status)
	assert.InEpsilon(t, ref.Objective, res.Objective, 1e-3)
}

// A full pass that fails mid-solve ends it with NumericalError, the
// pass's error, and the last point a full pass evaluated as MostFeasible.
func TestRemoteSolveFailedPass(t *testing.T) {
	p, _, pass, calls, rows := sampleProblem(t, 0.3)
	bad := errors.New("the pass pipeline failed: shard /data/train-00002.parquet: not a Parquet file")
	failing := func(x []float64) ([]float64, [][]float64, error) {
		if *calls == 2 {
			return nil, nil, bad
		}
		return pass(x)
	}
	res, err := solve.Minimize(context.Background(), p, make([]float64, p.N), solve.Settings{Oracle: &solve.DynamicOracle{FullPass: failing, FullRows: rows}})
	require.NoError(t, err)
	assert.Equal(t, solve.NumericalError, res.Status)
	assert.Equal(t, bad, res.Err)
	require.Len(t, res.X, p.N)
	require.NotNil(t, res.MostFeasible)
	assert.Equal(t, 2, *calls)
	vals, _, err := pass(res.MostFeasible.X) // the second anchor
	require.NoError(t, err)
	assert.Equal(t, vals[0], res.MostFeasible.Objective)
}

// Two full passes that differ by the rounding of their sums (here every
// value and gradient entry of one is the other's times 1 +- 1e-15, as a
// pass adding its shards in another order differs) give the same solve,
// point for point: the rounds take the passes on a grid that such
// differences do not cross. The reported objectives are the passes' own.
func TestRemoteSolveIgnoresPassRounding(t *testing.T) {
	if raceEnabled {
		t.Skip("two solves take minutes under the race detector")
	}
	p, _, pass, _, rows := sampleProblem(t, 0.3)
	rng := rand.New(rand.NewPCG(33, 16))
	jitter := func(v float64) float64 { return v * (1 + 1e-15*float64(2*rng.IntN(2)-1)) }
	noisy := func(x []float64) ([]float64, [][]float64, error) {
		vals, grads, err := pass(x)
		for f := range vals {
			vals[f] = jitter(vals[f])
			for j := range grads[f] {
				grads[f][j] = jitter(grads[f][j])
			}
		}
		return vals, grads, err
	}
	x0 := make([]float64, p.N)
	a, err := solve.Minimize(context.Background(), p, x0, solve.Settings{Oracle: &solve.DynamicOracle{FullPass: pass, FullRows: rows}})
	require.NoError(t, err)
	b, err := solve.Minimize(context.Background(), p, x0, solve.Settings{Oracle: &solve.DynamicOracle{FullPass: noisy, FullRows: rows}})
	require.NoError(t, err)
	assert.Equal(t, solve.Converged, a.Status)
	assert.Equal(t, a.Status, b.Status)
	assert.Equal(t, a.X, b.X)
	assert.InEpsilon(t, a.Objective, b.Objective, 1e-14)
}
