package plan

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/modelfile"
	"github.com/qrc-lang/qrc/point"
	"github.com/qrc-lang/qrc/problem"
	"github.com/qrc-lang/qrc/solve"
)

// The oracle choice on small models, without a solve: each model and
// request gives the oracle (by its name and type, and the form it
// carries) and the note that says why, or a refusal.
func TestChoice(t *testing.T) {
	cases := []struct {
		name   string
		src    string
		oracle solve.Oracle // asked for; nil: auto
		want   string       // the oracle's name
		why    []string     // in the note, in order; none for an oracle asked for
		refuse string       // in the *RefusalError
	}{
		{name: "smooth", src: "var x in box(-2, 2)\nvar y\nminimize (x - 1)^2 + (y + 0.5)^2\nsubject to c: x + y <= 1",
			want: "smooth", why: []string{"oracle smooth (auto: every function is differentiable; the model has no means over data rows to sample)"}},
		{name: "l1 of single variables", src: "var x[3] in box(-5, 5)\nminimize sum(j in 1..3) ((x[j] - j)^2 + 0.5 * abs(x[j]))\nsubject to c: x[1] + x[2] <= 1",
			want: "prox", why: []string{"oracle prox (auto: ", "every kink is pos, abs, hinge, mcp or scad of a single variable in the objective"}},
		{name: "piecewise linear", src: "var x in box(-5, 5)\nvar y in box(-5, 5)\nminimize abs(x + y - 1) + pos(x - 2 * y)\nsubject to c: pos(x - y) <= 1",
			want: "epigraph", why: []string{"oracle epigraph (auto: ", "every function is convex and piecewise linear by its form", "the model has no means over data rows to sample)"}},
		{name: "piecewise linear over data rows", src: "data d = libsvm(\"data/a9a.svm\", features = 123)\nvar w[d.d] in box(-1, 1)\nminimize mean(i in d) hinge(d.y[i] * dot(d.X[i], w))",
			want: "epigraph", why: []string{"oracle epigraph (auto: ", "the data means run over 2000 rows"}},
		{name: "nested maxima", src: "var x in box(-5, 5)\nvar y\nminimize max(pos(x - 1) + abs(y), 2 * x - y, -x)\nsubject to c: norm1([x, y]) + norminf([x - 1, y]) <= 4",
			want: "epigraph", why: []string{"oracle epigraph (auto: "}},
		{name: "piecewise linear in a ball", src: "var x[2] in ball(3)\nminimize abs(x[1] - 1) + pos(x[2])",
			want: "dual", why: []string{"oracle dual (auto: "}},
		{name: "max of smooth pieces", src: "var x in box(-5, 5)\nvar y in box(-5, 5)\nminimize max(x^2 + y^2, (x - 1)^2 + y^2, x * y)",
			want: "epigraph", why: []string{"oracle epigraph (auto: ", "so lifted over epigraph variables the model is smooth", "; the model has no means over data rows to sample)"}},
		{name: "a kink inside a nonlinear function", src: "var x in box(-5, 5)\nminimize max(log(1 + abs(x)), x^2)",
			want: "bundle", why: []string{"oracle bundle (auto: "}},
		{name: "a maximum of a smooth term of many variables", src: "param n = 300\nvar x[n] in box(-1, 1)\nminimize max(dot(x, x), x[1])",
			want: "bundle", why: []string{"oracle bundle (auto: "}},
		{name: "a dense maximum of linear functions", src: "param n = 400\nvar x[n] = 1\nminimize max(i in 1..n) abs(sum(j in 1..n) x[j] / (i + j - 1))",
			want: "bundle", why: []string{"oracle bundle (auto: "}},
		{name: "max of smooth pieces over data rows", src: "data d = libsvm(\"data/a9a.svm\", features = 123)\nvar w[d.d] in box(-1, 1)\nminimize max(mean(i in d) log(1 + exp(-d.y[i] * dot(d.X[i], w))), w[1]^2)",
			want: "bundle", why: []string{"oracle bundle (auto: "}},
		{name: "kink kept away by the domain", src: "var x in box(1, 4)\nminimize sqrt(x) + (x - 3)^2",
			want: "smooth", why: []string{"oracle smooth (auto: ", "but the domain keeps every kink's argument away from it"}},
		{name: "kinks with an equality", src: "var x in box(-5, 5)\nvar y in box(-5, 5)\nminimize abs(x) + abs(y - 1)\nsubject to e: x + y == 1",
			want: "epigraph", why: []string{"oracle epigraph (auto: "}},
		{name: "kinks with a nonlinear equality", src: "var x in box(-5, 5)\nvar y in box(-5, 5)\nminimize abs(x) + abs(y - 1)\nsubject to e: x * y == 1",
			refuse: "the bundle oracle takes affine equalities only"},
		{name: "epigraph asked for in a ball", src: "var x in ball(5)\nminimize abs(x - 1)", oracle: solve.Epigraph,
			refuse: "the domain of x is not a box"},
		{name: "data rows", src: "data d = libsvm(\"data/a9a.svm\", features = 123)\nvar w[d.d] in ball(10)\nminimize mean(i in d) log(1 + exp(-d.y[i] * dot(d.X[i], w)))",
			want: "smooth", why: []string{"oracle smooth (auto: every function is differentiable; the data means run over 2000 rows, fewer than 50000)"}},
		{name: "bundle asked for", src: "var x in box(-2, 2)\nminimize (x - 1)^2", oracle: solve.Bundle, want: "bundle"},
		{name: "dual asked for", src: "var x in box(-5, 5)\nminimize abs(x - 1)", oracle: solve.Dual, want: "dual"},
		{name: "smooth asked for on a kink", src: "var x in box(-5, 5)\nminimize abs(x - 1)", oracle: solve.Smooth,
			refuse: "Options.Oracle = smooth needs a differentiable model"},
		{name: "prox asked for on a max", src: "var x in box(-5, 5)\nminimize max(x, x^2)", oracle: solve.Prox,
			refuse: "Options.Oracle = prox needs an objective that is a differentiable rest"},
		{name: "dual asked for on a smooth model", src: "var x in box(-5, 5)\nminimize exp(x)", oracle: solve.Dual,
			refuse: "Options.Oracle = dual needs every function to be a sum of pos, abs and hinge"},
		{name: "stochastic on a biased mean", src: "data d = libsvm(\"data/a9a.svm\", features = 123)\nvar w[d.d] in ball(10)\nminimize log(mean(i in d) exp(-d.y[i] * dot(d.X[i], w)))", oracle: solve.Stochastic,
			refuse: "a minibatch estimate of"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, prog := loadSource(t, tc.src)
			var notes []string
			r := Request{Model: m, Program: prog, Oracle: tc.oracle, Start: point.Start(m), Notes: func(n Note) {
				if n.Kind == NoteOracle {
					notes = append(notes, n.Text)
				}
			}}
			pl, err := Make(context.Background(), problem.New(m, prog, problem.Options{}), r)
			if tc.refuse != "" {
				var re *RefusalError
				require.True(t, errors.As(err, &re), "want a refusal, got %v", err)
				assert.Contains(t, re.Error(), tc.refuse)
				return
			}
			require.NoError(t, err)
			o := pl.Settings.Oracle
			require.NotNil(t, o)
			assert.Equal(t, tc.want, o.String())
			switch o := o.(type) {
			case *solve.DualOracle:
				assert.NotNil(t, o.Pieces, "the dual oracle carries its pieces")
			case *solve.ProxOracle:
				assert.NotNil(t, o.Separable, "the prox oracle carries its separable objective")
			}
			if len(tc.why) == 0 {
				assert.Empty(t, notes, "an oracle asked for gets no note")
				return
			}
			require.Len(t, notes, 1)
			rest := notes[0]
			for _, w := range tc.why {
				assert.Contains(t, rest, w)
			}
		})
	}
}

// Check refuses what Make refuses before a solve (an oracle that refuses
// the model, an equality the oracle does not take), and lets through an
// automatic choice of the bundle oracle, which the analysis may change.
func TestCheck(t *testing.T) {
	m, prog := loadSource(t, "var x in box(-5, 5)\nvar y in box(-5, 5)\nminimize abs(x) + y^2\nsubject to e: x * y == 1")
	assert.NoError(t, Check(Request{Model: m, Program: prog}))
	err := Check(Request{Model: m, Program: prog, Oracle: solve.Bundle})
	var re *RefusalError
	require.True(t, errors.As(err, &re), "%v", err)
	assert.Contains(t, re.Error(), `equality constraint "e": the bundle oracle takes affine equalities only`)
	err = Check(Request{Model: m, Program: prog, Method: "penalty"})
	require.True(t, errors.As(err, &re), "%v", err)
	assert.Contains(t, re.Error(), "the penalty method takes inequality constraints only")
}

// loadSource checks and compiles the model text src, with data files
// relative to the examples.
func loadSource(t *testing.T, src string) (*check.Model, *autodiff.Program) {
	t.Helper()
	m, _, diags := modelfile.LoadSource("t.qrc", []byte(src), check.Options{Dir: filepath.Join("..", "examples")})
	require.NoError(t, diags.Err())
	prog, err := autodiff.Compile(m)
	require.NoError(t, err)
	return m, prog
}
