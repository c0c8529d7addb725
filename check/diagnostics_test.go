package check_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/diag/diagtest"
	"github.com/qrc-lang/qrc/modelfile"
)

var update = flag.Bool("update", false, "rewrite the golden files of TestRenderedDiagnostics")

// dataFileLine matches a data-file location inside a message, such as
// "../data/bad.svm:3:7:" or "../data/short.csv:4:".
var dataFileLine = regexp.MustCompile(`[^\s":]+\.(svm|csv):[1-9][0-9]*:`)

// TestBadModels checks every model of testdata/bad against the
// expectations written on its lines (# ERROR @COL "regexp", see package
// diagtest): each diagnostic expected, at its line and column, and none
// other. A model with an ERROR must be rejected, one with warnings only
// accepted.
func TestBadModels(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "bad", "*.qrc"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(paths), 30, "the corpus of bad models is missing")
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".qrc")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			m, _, diags := modelfile.Load(path, check.Options{})
			want := diagtest.Match(t, path, src, diags)
			require.NotEmpty(t, want, "the model expects no diagnostic at all")
			if slices.ContainsFunc(want, func(e diagtest.Expectation) bool { return e.Severity == diag.Error }) {
				assert.Nil(t, m, "a model with errors must be invalid")
			} else {
				assert.NotNil(t, m, "a model with warnings only must be valid")
			}
			for _, d := range diags {
				checkPosition(t, path, d)
			}
		})
	}
}

// TestRenderedDiagnostics checks the models of testdata/render against the
// rendered diagnostics in their .golden files: the span a diagnostic
// underlines (two on one line, a whole call, a file name) and a warning's
// rendering, where the caret itself is what is tested, and a string left
// open, whose line cannot carry an expectation (it would be in the string).
func TestRenderedDiagnostics(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "render", "*.qrc"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(paths), 4, "the rendered models are missing")
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".qrc")
		t.Run(name, func(t *testing.T) {
			m, sources, diags := modelfile.Load(path, check.Options{})
			var buf bytes.Buffer
			diags.Print(&buf, sources)
			got := buf.String()

			golden := strings.TrimSuffix(path, ".qrc") + ".golden"
			if *update {
				require.NoError(t, os.WriteFile(golden, buf.Bytes(), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./check -run TestRenderedDiagnostics -update to create it")
			assert.Equal(t, string(want), got)

			require.NotEmpty(t, diags, "the model has no diagnostic at all")
			if hasErrorLine(string(want)) {
				assert.Nil(t, m, "a model with errors must be invalid")
				assert.True(t, diags.HasErrors())
			} else {
				assert.NotNil(t, m, "a model with warnings only must be valid")
				assert.False(t, diags.HasErrors())
			}
			for _, d := range diags {
				checkPosition(t, path, d)
			}
		})
	}
}

// hasErrorLine reports whether rendered diagnostics hold an error: a message
// line "file:line:col: msg" without "warning: ".
func hasErrorLine(rendered string) bool {
	for _, line := range strings.Split(rendered, "\n") {
		if strings.HasPrefix(line, "testdata/") && !strings.Contains(line, ": warning: ") {
			return true
		}
	}
	return false
}

// checkPosition asserts that d points into the model file, and that a
// message about a data file names the line of that file.
func checkPosition(t *testing.T, path string, d *diag.Diagnostic) {
	t.Helper()
	assert.Equal(t, path, d.Pos.Filename, "diagnostic %q is not in the model file", d.Msg)
	assert.GreaterOrEqual(t, d.Pos.Line, 1, "diagnostic %q has no line", d.Msg)
	assert.GreaterOrEqual(t, d.Pos.Column, 1, "diagnostic %q has no column", d.Msg)
	if d.End.IsValid() {
		assert.True(t, d.End.Offset >= d.Pos.Offset, "diagnostic %q ends before it starts", d.Msg)
	}
	if strings.Contains(d.Msg, "cannot load data set") && !strings.Contains(d.Msg, "cannot open file") {
		assert.Regexp(t, dataFileLine, d.Msg, "a data-file message must name the line of the data file")
	}
}
