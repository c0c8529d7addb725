package qrc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc"
	"github.com/qrc-lang/qrc/solve"
	"github.com/qrc-lang/qrc/solvecmd"
)

// Every shipped example, with its shipped data, solves to the same report
// through the library and through the qrc binary (a short run of the
// switching oracle, or of bundle for a model with equalities, so that the
// test is quick): the same status, and the
// objective, infeasibility, constraints and variables to 1e-9, every
// field of the JSON result but the time, and the verdict once its options
// are named as flags.
func TestExamplesLibraryMatchesBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the qrc binary")
	}
	files, err := filepath.Glob("examples/*.qrc")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	bin := filepath.Join(t.TempDir(), "qrc")
	out, err := exec.Command("go", "build", "-o", bin, "./cmd/qrc").CombinedOutput()
	require.NoError(t, err, "%s", out)

	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			m, err := qrc.Load(file)
			require.NoError(t, err)
			// Algorithm 2 takes no equality: a model with one runs the
			// bundle oracle (which takes affine ones) as briefly
			o := solve.Switching
			for _, c := range m.Checked().Constraints {
				if c.IsEquality() {
					o = solve.Bundle
				}
			}
			rep, err := m.Solve(context.Background(), qrc.WithOracle(o),
				qrc.WithSettings(solve.Settings{Outer: 3, Inner: 200}))
			require.NoError(t, err)
			var lib bytes.Buffer
			require.NoError(t, rep.WriteJSON(&lib))

			cmd := exec.Command(bin, "solve", file, "--oracle", o.String(), "--outer", "3", "--inner", "200", "--json", "--quiet")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err = cmd.Run()
			var ee *exec.ExitError
			if err != nil && !assert.ErrorAs(t, err, &ee, stderr.String()) {
				return
			}
			// the exit code follows the status (0, 3 infeasible, 4 numerical)
			code := map[string]int{"infeasible": 3, "numerical_error": 4}[rep.Status]
			assert.Equal(t, code, cmd.ProcessState.ExitCode(), stderr.String())

			var a, b map[string]any
			require.NoError(t, json.Unmarshal(lib.Bytes(), &a))
			require.NoError(t, json.Unmarshal(stdout.Bytes(), &b), stdout.String())
			delete(a, "seconds")
			delete(b, "seconds")
			// the library's verdict names options, the binary's flags
			if v, ok := a["verdict"].(string); ok {
				a["verdict"] = solvecmd.ToFlags(v)
			}
			assert.Equal(t, b["status"], a["status"])
			sameJSON(t, "", b, a)
		})
	}
}

// sameJSON compares decoded JSON values, numbers to a relative 1e-9.
func sameJSON(t *testing.T, path string, want, got any) {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !assert.True(t, ok, "%s: %v is not an object", path, got) {
			return
		}
		assert.Equal(t, len(w), len(g), "%s: fields", path)
		for k, v := range w {
			sameJSON(t, path+"."+k, v, g[k])
		}
	case []any:
		g, ok := got.([]any)
		if !assert.True(t, ok, "%s: %v is not an array", path, got) || !assert.Len(t, g, len(w), path) {
			return
		}
		for i := range w {
			sameJSON(t, fmt.Sprintf("%s[%d]", path, i), w[i], g[i])
		}
	case float64:
		g, ok := got.(float64)
		if assert.True(t, ok, "%s: %v is not a number", path, got) {
			assert.LessOrEqual(t, math.Abs(g-w), 1e-9*math.Max(1, math.Abs(w)), "%s: %v, the binary %v", path, g, w)
		}
	default:
		assert.Equal(t, want, got, path)
	}
}
