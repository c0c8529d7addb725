//go:build !race

// The pipelines run on Prism in process. Under the race detector they are
// skipped: Beam's SDK and Prism are large, their race build alone takes
// minutes on CI's two cores, and these tests exercise qrc's code, which
// the race run covers through package distrib.

package beamrun

import (
	"context"
	"flag"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/distrib"
	"github.com/qrc-lang/qrc/modelfile"
)

func TestMain(m *testing.M) {
	flag.Parse()
	beam.Init()
	// Beam's and Prism's log lines would fill CI's log
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError + 4})))
	os.Exit(m.Run())
}

// split writes the data lines of file (after header lines repeated on
// every shard) as k shards of uneven sizes into a new directory.
func split(t *testing.T, file string, header, k int) string {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	lines := strings.SplitAfter(strings.TrimRight(string(b), "\n")+"\n", "\n")
	lines = lines[:len(lines)-1]
	head, body := strings.Join(lines[:header], ""), lines[header:]
	dir := t.TempDir()
	at := 0
	for s := range k {
		end := len(body) * (s + 1) * (s + 2) / (k * (k + 1))
		p := filepath.Join(dir, "part-"+string(rune('0'+s))+filepath.Ext(file))
		require.NoError(t, os.WriteFile(p, []byte(head+strings.Join(body[at:end], "")), 0o644))
		at = end
	}
	return dir
}

// One full pass through Prism gives every function's value and gradient
// over all shards to 1e-12 relative of the ordinary program on the whole
// file: the fairness model (filtered means, uneven groups per shard) and
// npc.qrc (a class filter in every mean). Prepare counts every row once and
// draws the same sample for the same seed, the sample distrib.Sample draws
// from the whole file.
func TestPassEqualsWholeData(t *testing.T) {
	cases := []struct {
		model, data string
		header      int
	}{
		{"../examples/fairness.qrc", "../examples/data/fairness.csv", 1},
		{"../examples/npc.qrc", "../examples/data/digits.svm", 0},
	}
	rng := rand.New(rand.NewPCG(33, 3))
	for _, c := range cases {
		t.Run(filepath.Base(c.model), func(t *testing.T) {
			dir := split(t, c.data, c.header, 3)
			job, err := distrib.NewJob(c.model, dir, nil)
			require.NoError(t, err)
			require.Len(t, job.Shards, 3)
			r := &Runner{Job: job, Temp: t.TempDir()}
			ctx := context.Background()
			sample, err := r.Prepare(ctx, 500, 7)
			require.NoError(t, err)

			m, _, diags := modelfile.Load(c.model, check.Options{})
			require.NoError(t, diags.Err())
			n := m.Data[0].Set.N()
			assert.Equal(t, n, r.Rows())
			// a uniform sample of about 500 rows: within 5 standard deviations
			frac := 500 / float64(n)
			sd := math.Sqrt(float64(n) * frac * (1 - frac))
			assert.InDelta(t, 500, sample.N(), 5*sd)
			again := &Runner{Job: job, Temp: t.TempDir()}
			sample2, err := again.Prepare(ctx, 500, 7)
			require.NoError(t, err)
			assert.Equal(t, sample.Y, sample2.Y)
			assert.Equal(t, sample.X.RawMatrix().Data, sample2.X.RawMatrix().Data)
			// the rows the shards keep are those the whole set keeps in
			// memory (qrc solve --finish rounds), in the same order
			whole, err := distrib.Sample("whole", m.Data[0].Set, 7, 500)
			require.NoError(t, err)
			assert.Equal(t, whole.Y, sample.Y)
			assert.Equal(t, whole.X.RawMatrix().Data, sample.X.RawMatrix().Data)

			prog, err := autodiff.Compile(m)
			require.NoError(t, err)
			x := make([]float64, prog.NumVars())
			for j := range x {
				x[j] = 0.05 * rng.NormFloat64()
			}
			vals, grads, err := r.Pass(ctx, x)
			require.NoError(t, err)
			nf := len(prog.Functions())
			want := make([]float64, nf)
			require.NoError(t, prog.Eval(x, want))
			near(t, want, vals, "value")
			for f := range nf {
				w := make([]float64, nf)
				w[f] = 1
				g := make([]float64, prog.NumVars())
				require.NoError(t, prog.Gradient(w, g))
				near(t, g, grads[f], "gradient")
			}
		})
	}
}

// near requires |got - want| <= 1e-12 max|want| entry by entry.
func near(t *testing.T, want, got []float64, what string) {
	t.Helper()
	require.Len(t, got, len(want))
	scale := 0.0
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	for j := range want {
		assert.LessOrEqual(t, math.Abs(got[j]-want[j]), 1e-12*scale, "%s[%d]: got %v, want %v", what, j, got[j], want[j])
	}
}

// A shard that cannot be read fails the pass with an error that names it,
// without Beam's plan around it.
func TestPassNamesABadShard(t *testing.T) {
	dir := split(t, "../examples/data/fairness.csv", 1, 3)
	job, err := distrib.NewJob("../examples/fairness.qrc", dir, nil)
	require.NoError(t, err)
	r := &Runner{Job: job, Temp: t.TempDir()}
	ctx := context.Background()
	_, err = r.Prepare(ctx, 100, 1)
	require.NoError(t, err)
	bad := filepath.Join(dir, "part-1.csv")
	require.NoError(t, os.WriteFile(bad, []byte("x1,x2\n1,2\n"), 0o644))
	_, _, err = r.Pass(ctx, make([]float64, 5))
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "the pass pipeline failed: shard "+bad+": "), err.Error())
	assert.NotContains(t, err.Error(), "\n")
}
