package qrc_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc"
	"github.com/qrc-lang/qrc/solve"
)

// concurrentJob is one solve of TestSolveConcurrently: its own start, seed,
// oracle and limits.
type concurrentJob struct {
	start  []float64
	opts   qrc.Options
	oracle solve.Oracle
}

// concurrentResult is what a job computed: the report as JSON without its
// timings, the point, the constraint values, and the evaluation at the
// point by Model.Eval.
type concurrentResult struct {
	json    string
	x, f    []float64
	evalObj float64
}

// TestSolveConcurrently: one loaded model solved from 8 goroutines at
// once, each from its own start with its own seed, oracle and proximal
// parameter, and each then evaluating its point, gives bit for bit the
// reports of the same 8 solves run one after the other. The sequential
// solves run on the program's own run state, the concurrent ones on it
// and seven evaluators; under -race the test checks that the solves share
// nothing they write. fairness.qrc has data means, so the stochastic and
// switching solves draw minibatches on their own run states.
func TestSolveConcurrently(t *testing.T) {
	m, err := qrc.Load("examples/fairness.qrc")
	require.NoError(t, err)
	jobs := concurrentJobs(m, 8)

	want := make([]concurrentResult, len(jobs))
	for i, j := range jobs {
		want[i] = runConcurrentJob(t, m, j)
	}
	// the jobs differ: a test of sharing must not compare equal solves
	for i := 1; i < len(want); i++ {
		require.NotEqual(t, want[0].x, want[i].x, "jobs 0 and %d", i)
	}

	got := make([]concurrentResult, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = runConcurrentJob(t, m, j)
		}()
	}
	wg.Wait()
	for i := range jobs {
		require.Equal(t, want[i].json, got[i].json, "job %d's report", i)
		requireBitwise(t, want[i].x, got[i].x, "job %d's point", i)
		requireBitwise(t, want[i].f, got[i].f, "job %d's values", i)
		requireBitwise(t, []float64{want[i].evalObj}, []float64{got[i].evalObj}, "job %d's Eval", i)
	}
}

// concurrentJobs returns n solves of m from starts drawn around its start,
// cycling through four oracles, with outer limits that keep them short.
func concurrentJobs(m *qrc.Model, n int) []concurrentJob {
	rng := rand.New(rand.NewPCG(31, 8))
	oracles := []solve.Oracle{solve.Smooth, solve.Stochastic, solve.Bundle, solve.Switching}
	jobs := make([]concurrentJob, n)
	for i := range jobs {
		x := m.Start()
		for k := range x {
			x[k] += 0.2 * rng.NormFloat64()
		}
		o := qrc.DefaultOptions()
		o.Seed = uint64(i + 1)
		o.RhoHat = 1 + float64(i%3)
		o.Outer = 6
		o.Inner = 40
		o.Start = x
		jobs[i] = concurrentJob{start: x, opts: o, oracle: oracles[i%len(oracles)]}
	}
	return jobs
}

// runConcurrentJob solves m as j says and evaluates the point it returns.
func runConcurrentJob(t *testing.T, m *qrc.Model, j concurrentJob) concurrentResult {
	rep, err := m.Solve(context.Background(), qrc.WithOptions(j.opts), qrc.WithOracle(j.oracle))
	if err != nil {
		t.Error(err)
		return concurrentResult{}
	}
	rep.Seconds = 0
	for k := range rep.Stages {
		rep.Stages[k].Seconds = 0
	}
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Error(err)
	}
	ev, err := m.Eval(rep.X())
	if err != nil {
		t.Error(err)
		return concurrentResult{}
	}
	return concurrentResult{json: buf.String(), x: rep.X(), f: rep.Result().F, evalObj: ev.Objective}
}

// requireBitwise fails unless a and b hold the same float64s bit for bit.
func requireBitwise(t *testing.T, a, b []float64, msg string, args ...any) {
	t.Helper()
	what := fmt.Sprintf(msg, args...)
	require.Len(t, b, len(a), what)
	for k := range a {
		if math.Float64bits(a[k]) != math.Float64bits(b[k]) {
			t.Fatalf("%s: value %d is %v, not %v", what, k, b[k], a[k])
		}
	}
}
