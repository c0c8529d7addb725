package solvecmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/diag"
)

// The library's messages, with options, become the messages qrc printed
// before the library named options (the expected lines are the text of
// the messages as cmd/qrc printed them, and its e2e tests check them).
func TestToFlags(t *testing.T) {
	for _, c := range []struct{ lib, cli string }{
		{"Options.Oracle = smooth needs a differentiable model, and at m.qrc:2:10: abs is not differentiable everywhere (use Options.Oracle = bundle)",
			"--oracle smooth needs a differentiable model, and at m.qrc:2:10: abs is not differentiable everywhere (use --oracle bundle)"},
		{"(use Options.Oracle = smooth, bundle or switching, or Options.AllowBiased to sample it anyway)",
			"(use --oracle smooth, bundle or switching, or --allow-biased to sample it anyway)"},
		{"raise Options.Outer (e.g. Options.Outer = 12); more Options.Inner iterations", "raise --outer (e.g. --outer 12); more --inner iterations"},
		{"raise Options.TimeLimit (e.g. Options.TimeLimit = 1m20s)", "raise --time-limit (e.g. --time-limit 1m20s)"},
		{"another start (Options.Start); 2 perturbed start(s) (Options.Restarts, Options.Seed = 7) found none either",
			"another start (--start); 2 perturbed start(s) (--restarts, --seed 7) found none either"},
		{"Try another start (Options.Start = point.Random) or a tighter Options.Eps", "Try another start (--start random) or a tighter --eps"},
		{"no other start was tried (Options.Restarts = 0)", "no other start was tried (--restarts 0)"},
		{"Options.Theory sets IQRC's parameters; Options.Method = penalty does not use them", "--theory sets IQRC's parameters; --method penalty does not use them"},
		{"a larger Options.RhoHat (the model ...), or Options.Oracle = switching", "a larger --rho-hat (the model ...), or --oracle switching"},
		{"x: [100], min 0, max 1, norm 3 (all values: Report.WriteJSON)", "x: [100], min 0, max 1, norm 3 (all values: --json or --out)"},
		{"rho = 2 from the weak-convexity analysis (weakconvex.Analyze explains it)", "rho = 2 from the weak-convexity analysis (qrc check --explain shows it)"},
		{"Options.Nosuch stays", "Options.Nosuch stays"},
		// the checker's overrides and evaluations
		{"value of param r:1:4: syntax error: unexpected end of file (expected an expression)",
			"--set r:1:4: syntax error: unexpected end of file (expected an expression)"},
		{"m.qrc: value of param nosuch: the model has no parameter \"nosuch\" (and 1 more errors)",
			"m.qrc: --set nosuch: the model has no parameter \"nosuch\" (and 1 more errors)"},
		{"file for data set Q: the model has no data set \"Q\" (did you mean \"D\"?)",
			"--data Q: the model has no data set \"Q\" (did you mean \"D\"?)"},
		{"m.qrc:2:6: cannot load data set \"D\" (from the file given for it): missing.csv: cannot open file: no such file or directory",
			"m.qrc:2:6: cannot load data set \"D\" (from --data D): missing.csv: cannot open file: no such file or directory"},
		{"not is only allowed in a where filter or an evaluation (an expression checked with check.CheckEvalExpr)",
			"not is only allowed in a where filter or an evaluation (:eval, qrc eval --metric)"},
		// a name the user gave, in quotes, is not a position
		{"the model has no parameter \"value of param r\"", "the model has no parameter \"value of param r\""},
	} {
		assert.Equal(t, c.cli, ToFlags(c.lib))
	}
}

// Every option the library's messages name has its flag in the table:
// the root package's sources are read for Options.Name.
func TestEveryNamedOptionHasAFlag(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "*.go"))
	require.NoError(t, err)
	ref := regexp.MustCompile(`"[^"\n]*"`)
	named := map[string]bool{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, lit := range ref.FindAll(src, -1) {
			for _, m := range optionRef.FindAllStringSubmatch(string(lit), -1) {
				named[m[1]] = true
			}
		}
	}
	require.Contains(t, named, "Outer", "the library's verdicts were read")
	for name := range named {
		_, ok := optionFlags[name]
		assert.True(t, ok, "Options.%s has no flag in optionFlags", name)
	}
}

// The checker's diagnostics about overrides are shown with the flags that
// gave them, in their positions and messages, and find their source lines
// under the flags' names; other diagnostics are copied as they are.
func TestDiagsToFlags(t *testing.T) {
	lib := diag.List{
		{Pos: ast.Pos{Filename: check.SetSourceName("r"), Line: 1, Column: 4}, End: ast.Pos{Filename: check.SetSourceName("r"), Line: 1, Column: 5}, Msg: "syntax error: unexpected end of file (expected an expression)"},
		{Pos: ast.Pos{Filename: check.DataSourceName("Q")}, Msg: `the model has no data set "Q"`},
		{Severity: diag.Warning, Pos: ast.Pos{Filename: "m.qrc", Line: 2, Column: 6}, Msg: `cannot load data set "D"` + check.DataFileNote + ": gone"},
	}
	sources := check.Sources{"m.qrc": []byte("param r = 1\ndata D = csv(\"d.csv\")\n"), check.SetSourceName("r"): []byte("3 +")}
	cli := DiagsToFlags(lib)
	require.Len(t, cli, 3)
	assert.Equal(t, "--set r:1:4: syntax error: unexpected end of file (expected an expression)", cli[0].Error())
	assert.Equal(t, "--set r", cli[0].End.Filename)
	assert.Equal(t, `--data Q: the model has no data set "Q"`, cli[1].Error())
	assert.Equal(t, `m.qrc:2:6: warning: cannot load data set "D" (from --data D): gone`, cli[2].Error())
	assert.Equal(t, check.SetSourceName("r"), lib[0].Pos.Filename, "the library's diagnostics are not changed")
	assert.Nil(t, DiagsToFlags(nil))

	var out strings.Builder
	PrintDiags(&out, lib, sources)
	assert.Equal(t, "--set r:1:4: syntax error: unexpected end of file (expected an expression)\n    3 +\n       ^\n"+
		"--data Q: the model has no data set \"Q\"\n"+
		"m.qrc:2:6: warning: cannot load data set \"D\" (from --data D): gone\n    data D = csv(\"d.csv\")\n         ^\n", out.String())
	assert.Equal(t, "m.qrc", SourceToFlag("m.qrc"))
}
