package qrc_test

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc"
	"github.com/qrc-lang/qrc/solve"
)

// flagLike is a command-line flag as qrc's are written: two dashes and a
// letter.
var flagLike = regexp.MustCompile(`--[a-z]`)

// The library's messages name its options (Options.Oracle = bundle), never
// a flag of the qrc command: the refusals, the errors of invalid options,
// the notes and the verdicts a solve returns.
func TestMessagesNameOptionsNotFlags(t *testing.T) {
	var got []string
	notes := qrc.WithNotes(func(n qrc.Note) { got = append(got, n.Text) })
	addErr := func(err error) {
		require.Error(t, err)
		got = append(got, err.Error())
		var r *qrc.RefusalError
		if errors.As(err, &r) {
			for _, d := range r.Diagnostics {
				got = append(got, d.Msg)
			}
		}
	}
	kink, err := qrc.Parse("k.qrc", "var x[2] in box(-1, 1)\nminimize norm1(x - 0.5)\n")
	require.NoError(t, err)
	_, err = kink.Solve(context.Background(), qrc.WithOracle(solve.Smooth))
	addErr(err)
	_, err = kink.Solve(context.Background(), qrc.WithMethod(qrc.Penalty), qrc.WithTheory(1))
	addErr(err)
	_, err = kink.Solve(context.Background(), qrc.WithMethod(qrc.Stochastic), qrc.WithOracle(solve.Bundle))
	addErr(err)
	_, err = kink.Solve(context.Background(), qrc.WithTheory(1), notes) // the note of the values
	require.NoError(t, err)
	concave, err := qrc.Parse("c.qrc", "var x in box(-1, 1)\nminimize -abs(x)\n")
	require.NoError(t, err)
	_, err = concave.Solve(context.Background(), qrc.WithTheory(1))
	addErr(err)
	// a model whose phase 1 gives up from the start: the restarts' notes
	// and the verdict of a local infeasibility
	far, err := qrc.Parse("far.qrc", "var x in box(-10, 10) = 0\nminimize x\nsubject to\n    ring: 1 - x^2 <= -1\n    tiny: x^2 <= 0.5\n")
	require.NoError(t, err)
	rep, err := far.Solve(context.Background(), notes, qrc.WithRestarts(2))
	require.NoError(t, err)
	got = append(got, rep.Verdict)
	rep, err = far.Solve(context.Background(), qrc.WithRestarts(0))
	require.NoError(t, err)
	got = append(got, rep.Verdict)
	// an outer-iteration limit while the iterates move
	npc, err := qrc.Load(filepath.Join("examples", "phase.qrc"))
	require.NoError(t, err)
	opts := qrc.DefaultOptions()
	opts.Oracle, opts.Outer, opts.Inner = solve.Switching, 3, 200
	rep, err = npc.Solve(context.Background(), notes, qrc.WithOptions(opts))
	require.NoError(t, err)
	require.NotEmpty(t, rep.Verdict, "phase.qrc stops on its outer limit while moving")
	got = append(got, rep.Verdict)
	var text strings.Builder
	rep.WriteText(&text, qrc.TextOptions{})
	// a variable too long to print whole: the text says where all of it is
	long, err := qrc.Parse("l.qrc", "var z[12] in box(-1, 1)\nminimize sum(j in 1..12) (z[j] - 0.5)^2\n")
	require.NoError(t, err)
	rep, err = long.Solve(context.Background())
	require.NoError(t, err)
	rep.WriteText(&text, qrc.TextOptions{})
	got = append(got, text.String())

	require.NotEmpty(t, got)
	for _, msg := range got {
		assert.NotRegexp(t, flagLike, msg)
	}
	assert.Contains(t, strings.Join(got, "\n"), "Options.Oracle = smooth needs a differentiable model")
	all := strings.Join(got, "\n")
	for _, want := range []string{"Options.Outer = 12", "Options.Theory: rho =", "Options.Theory needs every function", "Options.Restarts = 0", "Options.Seed = 1", "Report.WriteJSON"} {
		assert.Contains(t, all, want)
	}
}

// The checker's messages about the overrides of Load and Parse and about
// comparisons name what a library user gave or can call: the value of a
// parameter (WithParamExpr, WithParam), the file of a data set
// (WithDataFile), check.CheckEvalExpr; never the flags of the qrc command
// that give the same (--set, --data, qrc eval --metric).
func TestCheckMessagesNameNoFlags(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "d.csv"), []byte("a,y\n1,1\n2,1\n"), 0o644))
	const model = "param r = 1\ndata D = csv(\"d.csv\", label = \"y\")\nvar x in box(-1, 1)\nminimize mean(i in D) (x - D.a[i])^2 + r * x\n"
	name := filepath.Join(dir, "m.qrc")
	for _, c := range []struct {
		src  string
		opts []qrc.Option
		want string
	}{
		{model, []qrc.Option{qrc.WithParamExpr("r", "3 +")}, "value of param r:1:4: syntax error: unexpected end of file (expected an expression)"},
		{model, []qrc.Option{qrc.WithParamExpr("nosuch", "1")}, `value of param nosuch: the model has no parameter "nosuch"`},
		{model, []qrc.Option{qrc.WithParam("nosuch", 1.0)}, `value of param nosuch: the model has no parameter "nosuch"`},
		{model, []qrc.Option{qrc.WithDataFile("Q", "d.csv")}, `file for data set Q: the model has no data set "Q" (did you mean "D"?)`},
		{model, []qrc.Option{qrc.WithDataFile("D", filepath.Join(dir, "missing.csv"))}, `cannot load data set "D" (from the file given for it): `},
		{"var x in box(-1, 1)\nminimize (x > 0) * x\n", nil, "or in an evaluation (an expression checked with check.CheckEvalExpr); in the objective"},
	} {
		_, err := qrc.Parse(name, c.src, c.opts...)
		var le *qrc.Error
		require.ErrorAs(t, err, &le, c.want)
		require.Len(t, le.Diagnostics, 1, c.want)
		var printed strings.Builder
		le.Print(&printed)
		for _, msg := range []string{err.Error(), le.Diagnostics[0].Error(), printed.String()} {
			assert.Contains(t, msg, c.want)
			assert.NotContains(t, msg, "--", c.want)
		}
	}
	// the value of a parameter is the source its caret is under
	_, err := qrc.Parse(name, model, qrc.WithParamExpr("r", "3 +"))
	var le *qrc.Error
	require.ErrorAs(t, err, &le)
	var printed strings.Builder
	le.Print(&printed)
	assert.Equal(t, "value of param r:1:4: syntax error: unexpected end of file (expected an expression)\n    3 +\n       ^\n", printed.String())
}

// No string literal of the library's own code names a flag: the messages
// its tests above do not reach are held to the same rule. (The package's
// doc comments may say what qrc does with an option; they are not
// literals.) The root package and the checker, whose messages reach a
// library user in an Error, are read.
func TestNoFlagInLibraryStrings(t *testing.T) {
	fset := token.NewFileSet()
	var files []string
	for _, pattern := range []string{"*.go", filepath.Join("check", "*.go"), filepath.Join("modelfile", "*.go")} {
		matched, err := filepath.Glob(pattern)
		require.NoError(t, err)
		files = append(files, matched...)
	}
	require.Contains(t, files, filepath.Join("check", "expr.go"))
	n := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(node ast.Node) bool {
			lit, ok := node.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			n++
			s, err := strconv.Unquote(lit.Value)
			require.NoError(t, err)
			assert.NotRegexp(t, flagLike, s, "%s", fset.Position(lit.Pos()))
			return true
		})
	}
	assert.Greater(t, n, 500, "the packages' string literals were read")
}
