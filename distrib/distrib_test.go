package distrib

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/modelfile"
)

// splitLines writes the data lines of file (after header lines kept on
// every shard) into k shards of uneven sizes in dir, and returns their
// paths.
func splitLines(t *testing.T, file string, header, k int) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	lines := strings.SplitAfter(strings.TrimRight(string(b), "\n")+"\n", "\n")
	lines = lines[:len(lines)-1]
	head, body := strings.Join(lines[:header], ""), lines[header:]
	dir := t.TempDir()
	var paths []string
	at := 0
	for s := range k {
		// shard s takes a share growing with s: uneven sizes and so
		// uneven filter counts per shard
		end := len(body) * (s + 1) * (s + 2) / (k * (k + 1))
		p := filepath.Join(dir, "part-"+string(rune('0'+s))+filepath.Ext(file))
		require.NoError(t, os.WriteFile(p, []byte(head+strings.Join(body[at:end], "")), 0o644))
		paths = append(paths, p)
		at = end
	}
	return paths
}

// load checks the model file with data set name read from path ("" for
// the model's own file).
func load(t *testing.T, model, name, path string, extra ...check.Assign) *check.Model {
	t.Helper()
	opts := check.Options{Set: extra}
	if path != "" {
		opts.Data = []check.Assign{{Name: name, Value: path}}
	}
	m, _, diags := modelfile.Load(model, opts)
	require.NoError(t, diags.Err())
	return m
}

// whole evaluates m's functions and gradients over all its rows with the
// ordinary compiled program, the reference.
func whole(t *testing.T, m *check.Model, x []float64) ([]float64, [][]float64) {
	t.Helper()
	prog, err := autodiff.Compile(m)
	require.NoError(t, err)
	nf := len(prog.Functions())
	vals := make([]float64, nf)
	require.NoError(t, prog.Eval(x, vals))
	grads := make([][]float64, nf)
	for f := range grads {
		grads[f] = make([]float64, prog.NumVars())
		w := make([]float64, nf)
		w[f] = 1
		require.NoError(t, prog.Gradient(w, grads[f]))
	}
	return vals, grads
}

// relClose requires |got - want| <= tol * max(|want|_inf, tiny) entry by
// entry: relative to the vector's scale.
func relClose(t *testing.T, want, got []float64, tol float64, what string) {
	t.Helper()
	require.Len(t, got, len(want))
	scale := 1e-300
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	for j := range want {
		assert.LessOrEqual(t, math.Abs(got[j]-want[j]), tol*scale, "%s[%d]: got %v, want %v", what, j, got[j], want[j])
	}
}

// The shards' partial sums, less the base, give the whole set's values and
// gradients to 1e-12 relative on the fairness model (two filtered means
// per constraint, uneven groups per shard) and on npc.qrc (a filter on the
// class in every loss, the constraints' means under an index k).
func TestShardsAddUpToTheWholeSet(t *testing.T) {
	cases := []struct {
		model, data, name string
		header            int
		extra             []check.Assign
	}{
		{"../examples/fairness.qrc", "../examples/data/fairness.csv", "people", 1, nil},
		{"../examples/npc.qrc", "../examples/data/digits.svm", "train", 0, nil},
	}
	rng := rand.New(rand.NewPCG(33, 1))
	for _, c := range cases {
		t.Run(filepath.Base(c.model), func(t *testing.T) {
			ref := load(t, c.model, "", "")
			shards := splitLines(t, c.data, c.header, 4)
			models := make([]*check.Model, len(shards))
			totals := Counts{}
			for s, p := range shards {
				models[s] = load(t, c.model, c.name, p)
				cnt, err := CountRows(models[s])
				require.NoError(t, err)
				require.NoError(t, totals.Add(cnt))
			}
			// the counts add up to the whole set's: every row once
			refCounts, err := CountRows(ref)
			require.NoError(t, err)
			assert.Equal(t, refCounts, totals)

			base, err := NewBase(ref)
			require.NoError(t, err)
			evals := make([]*Evaluator, len(shards))
			for s, m := range models {
				evals[s], err = NewShard(m, totals)
				require.NoError(t, err)
			}
			for range 3 {
				x := make([]float64, base.NumVars())
				for j := range x {
					x[j] = 0.05 * rng.NormFloat64()
				}
				var sum Partial
				for _, e := range evals {
					p, err := e.At(x)
					require.NoError(t, err)
					sum.Add(p)
				}
				b, err := base.At(x)
				require.NoError(t, err)
				vals, grads := Combine(sum, b)
				wantV, wantG := whole(t, ref, x)
				relClose(t, wantV, vals, 1e-12, "value")
				for f := range wantG {
					relClose(t, wantG[f], grads[f], 1e-12, "gradient")
				}
				assert.Equal(t, 4, sum.Shards)
				assert.Equal(t, ref.Data[0].Set.N(), sum.Rows)
			}
		})
	}
}

// Models whose functions are not affine in their data terms are refused
// with a message naming the expression.
func TestCheckRefusesNonlinearDataTerms(t *testing.T) {
	head := "data people = csv(\"data/fairness.csv\", label = \"y\", drop = [\"group\"])\nvar x[people.d] in ball(5)\n"
	cases := map[string]string{
		"minimize log(mean(i in people) sigmoid(dot(people.X[i], x)))":                            `m.qrc:3:10: log(mean(i in people) sigmoid(dot(people.X[i], x))): a data term inside log(...)`,
		"minimize mean(i in people) sigmoid(dot(people.X[i], x) - mean(j in people) people.y[j])": `m.qrc:3:58: mean(j in people) people.y[j]: a data mean inside the mean over people at line 3 needs one pass per level`,
		"minimize max(i in people) dot(people.X[i], x)":                                           `m.qrc:3:10: max(i in people) dot(people.X[i], x): a max over the rows of data set people is not a sum of rows`,
		"minimize (mean(i in people) dot(people.X[i], x)) * (mean(i in people) people.y[i])":      `: a product of two data terms`,
		"minimize sum(i in people) dot(people.X[i], x) / people.n":                                `m.qrc:3:49: people.n: the rows of a data set differ from shard to shard`,
	}
	for src, want := range cases {
		m, _, diags := modelfile.LoadSource("m.qrc", []byte(head+src+"\n"), check.Options{Dir: "../examples"})
		require.NoError(t, diags.Err(), src)
		err := Check(m)
		require.Error(t, err, src)
		assert.Contains(t, err.Error(), want)
		if !strings.Contains(src, "people.n") {
			assert.Contains(t, err.Error(), "affine in its data means and sums")
		}
	}
	// affine uses are accepted: a difference of means, a mean times a
	// factor without data, a data sum
	for _, src := range []string{
		"minimize 2 * mean(i in people) logistic(-people.y[i] * dot(people.X[i], x)) - mean(i in people where people.group[i] == 1) sigmoid(dot(people.X[i], x)) + norm1(x)",
		"minimize x[1] * mean(i in people) people.y[i] + sum(i in people) dot(people.X[i], x) / 1000",
	} {
		m, _, diags := modelfile.LoadSource("m.qrc", []byte(head+src+"\n"), check.Options{Dir: "../examples"})
		require.NoError(t, diags.Err(), src)
		assert.NoError(t, Check(m), src)
	}
}
