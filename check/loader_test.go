package check_test

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/lang"
)

// memLoader serves data sets from CSV text in memory and records what the
// checker asked for.
type memLoader struct {
	files map[string]string // path -> CSV text
	asked []check.DataRequest
}

func (l *memLoader) LoadData(req check.DataRequest) (*data.Set, error) {
	l.asked = append(l.asked, req)
	text, ok := l.files[req.Path]
	if !ok {
		return nil, errors.New("no such file in memory")
	}
	return data.ReadCSV(strings.NewReader(text), req.Path, req.CSV)
}

func checkText(t *testing.T, text string, opts check.Options) (*check.Model, []string) {
	t.Helper()
	f, errs := lang.Parse(filepath.Join("dir", "m.qrc"), []byte(text))
	require.Nil(t, errs, "%v", errs)
	m, diags := check.Check(f, opts)
	var out []string
	for _, d := range diags.Errors() {
		out = append(out, d.Error())
	}
	return m, out
}

const loaderModel = `data D = csv("t.csv", label = "y", drop = ["g"])
var w in box(-1, 1)
minimize mean(i in D) (D.x[i] * w - D.y[i])^2
`

func TestLoaderIsAskedForTheDeclaration(t *testing.T) {
	l := &memLoader{files: map[string]string{filepath.Join("dir", "t.csv"): "x,g,y\n1,a,2\n3,b,4\n"}}
	m, errs := checkText(t, loaderModel, check.Options{Loader: l, UsedColumns: true})
	require.Empty(t, errs)
	require.Len(t, l.asked, 1)
	req := l.asked[0]
	assert.Equal(t, "D", req.Name)
	assert.Equal(t, "csv", req.Loader)
	assert.Equal(t, filepath.Join("dir", "t.csv"), req.Path) // relative to the model's directory
	assert.False(t, req.Override)
	assert.Equal(t, "y", req.CSV.Label)
	assert.Equal(t, []string{"g"}, req.CSV.Drop)
	assert.Contains(t, req.CSV.Columns, "x") // UsedColumns: the columns the model names
	assert.Equal(t, 1, req.Decl.Pos().Line)
	require.Len(t, m.Data, 1)
	assert.Equal(t, []float64{2, 4}, m.Data[0].Set.Y)
}

func TestLoaderOverrideSwitchesLoaderByExtension(t *testing.T) {
	l := &memLoader{}
	_, errs := checkText(t, loaderModel, check.Options{Loader: l, Data: []check.Assign{{Name: "D", Value: "other.parquet"}}})
	require.Len(t, l.asked, 1)
	assert.Equal(t, "parquet", l.asked[0].Loader)
	assert.Equal(t, "other.parquet", l.asked[0].Path) // as given, not joined to the model's directory
	assert.True(t, l.asked[0].Override)
	// The loader's error is reported at the declaration's name (an
	// override's file is not in the model's text).
	assert.Equal(t, []string{`dir/m.qrc:1:6: cannot load data set "D" (from the file given for it): no such file in memory`}, errs)
}

func TestLoaderErrorAtTheOptionItNames(t *testing.T) {
	// The label column is missing: the error points at the label option
	// (column 31), not at the file name (column 14).
	l := &memLoader{files: map[string]string{filepath.Join("dir", "t.csv"): "x,g,z\n1,a,2\n"}}
	_, errs := checkText(t, loaderModel, check.Options{Loader: l})
	require.Len(t, errs, 1)
	assert.True(t, strings.HasPrefix(errs[0], `dir/m.qrc:1:31: cannot load data set "D": `), errs[0])
}

func TestNoLoaderIsAnErrorAtTheFileName(t *testing.T) {
	_, errs := checkText(t, loaderModel, check.Options{})
	assert.Equal(t, []string{`dir/m.qrc:1:14: cannot load data set "D": no data loader is configured (check.Options.Loader is nil)`}, errs)
	// Sets in memory need no loader.
	set, err := data.ReadCSV(strings.NewReader("x,g,y\n1,a,2\n"), "mem", data.CSVOptions{Label: "y", Drop: []string{"g"}})
	require.NoError(t, err)
	m, errs := checkText(t, loaderModel, check.Options{Sets: map[string]*data.Set{"D": set}})
	require.Empty(t, errs)
	assert.Same(t, set, m.Data[0].Set)
}

// TestCheckerDoesNoIO holds package check to reading no file: its
// non-test sources import no package that opens files, and call none of
// package data's functions (each of which reads a file or a reader) nor
// use its Cache. Data reach the checker through Options.Loader.
func TestCheckerDoesNoIO(t *testing.T) {
	dataFuncs := exportedFuncs(t, filepath.Join("..", "data"))
	require.Contains(t, dataFuncs, "LoadCSV") // the parse found data's loaders
	forbiddenImports := []string{"os", "io/fs", "io/ioutil", "syscall", "net", "net/http", "os/exec",
		"github.com/qrc-lang/qrc/fileio", "github.com/qrc-lang/qrc/modelfile"}
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	n := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		n++
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			assert.False(t, slices.Contains(forbiddenImports, path), "%s imports %s", name, path)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "data" {
				assert.False(t, dataFuncs[sel.Sel.Name], "%s: check calls data.%s", fset.Position(sel.Pos()), sel.Sel.Name)
				assert.NotEqual(t, "Cache", sel.Sel.Name, "%s: check uses data.Cache", fset.Position(sel.Pos()))
			}
			return true
		})
	}
	require.Greater(t, n, 10) // the glob found check's sources
}

// exportedFuncs are the exported package-level functions of the package in
// dir.
func exportedFuncs(t *testing.T, dir string) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	out := map[string]bool{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.IsExported() {
				out[fd.Name.Name] = true
			}
		}
	}
	return out
}
