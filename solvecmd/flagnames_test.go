package solvecmd

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
