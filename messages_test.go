package qrc_test

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
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

// No string literal of the library's own code names a flag: the messages
// its tests above do not reach are held to the same rule. (The package's
// doc comments may say what qrc does with an option; they are not
// literals.)
func TestNoFlagInLibraryStrings(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
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
	assert.Greater(t, n, 100, "the package's string literals were read")
}
