package autodiff

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/internal/npcref"
	"github.com/qrc-lang/qrc/internal/shareddata"
	"github.com/qrc-lang/qrc/modelfile"
)

// sparseGen generates the rows of a sparse LIBSVM set deterministically:
// row i's label and its nonzeros (0-based columns, increasing), with
// values that are multiples of 1/8, so that they print and parse exactly.
// The last row has a nonzero in the last column.
type sparseGen struct {
	n, d, perRow int
	classes      int // labels 1..classes, or ±1 when 0
}

func (g sparseGen) row(i int) (y float64, cols []int, vals []float64) {
	rng := rand.New(rand.NewPCG(uint64(i), 77))
	seen := map[int]bool{}
	for len(cols) < g.perRow {
		j := rng.IntN(g.d)
		if !seen[j] {
			seen[j] = true
			cols = append(cols, j)
		}
	}
	for k := 1; k < len(cols); k++ { // insertion sort: rows are short
		for q := k; q > 0 && cols[q] < cols[q-1]; q-- {
			cols[q], cols[q-1] = cols[q-1], cols[q]
		}
	}
	for range cols {
		v := float64(rng.IntN(33)-16) / 8
		if v == 0 {
			v = 0.125
		}
		vals = append(vals, v)
	}
	if i == g.n-1 && cols[len(cols)-1] != g.d-1 { // so that the loader sees every feature
		cols, vals = append(cols, g.d-1), append(vals, 0.5)
	}
	y = float64(2*rng.IntN(2) - 1)
	if g.classes > 0 {
		y = float64(1 + i%g.classes)
	}
	return y, cols, vals
}

// write writes the set as a LIBSVM file.
func (g sparseGen) write(t testing.TB, path string) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	for i := range g.n {
		y, cols, vals := g.row(i)
		w.WriteString(strconv.FormatFloat(y, 'g', -1, 64))
		for k, j := range cols {
			fmt.Fprintf(w, " %d:%s", j+1, strconv.FormatFloat(vals[k], 'g', -1, 64))
		}
		w.WriteString("\n")
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
}

// sparseModel is a model with every form that runs sparse: dot(w, X[i]) in
// a logistic loss, dot(W[k] - W[l], X[i]) over classes with a filter on the
// label, and a sum over the features in a hinge constraint; plus a mean
// over a filtered subset.
const sparseModel = `data D = libsvm("d.svm")
param K = 3
var w[D.d] in box(-1, 1)
var W[K, D.d] in box(-1, 1)
minimize mean(i in D) log(1 + exp(-(D.y[i] - 2) * dot(w, D.X[i]))) + 0.01 * sum(j in 1..D.d) w[j]^2
subject to cls[k in 1..K]: mean(i in D where D.y[i] == k) sum(l in 1..K where l != k) sigmoid(dot(D.X[i], W[l] - W[k])) <= 0.5
subject to hinge: mean(i in D) max(0, 1 - (D.y[i] - 2) * sum(j in 1..D.d) W[1, j] * D.X[i, j]) <= 2
`

// compileSparseAndDense compiles the checked model m twice: as loaded (its
// sets sparse) and after converting every sparse set to dense.
func compileSparseAndDense(t *testing.T, m *check.Model, o *Options) (sp, dn *Program) {
	t.Helper()
	sp, err := CompileWith(m, *o)
	require.NoError(t, err)
	require.Positive(t, countSparse(sp), "the program has no sparse dot product")
	for _, ds := range m.Data {
		require.True(t, ds.Set.IsSparse())
		require.Nil(t, ds.Set.X, "the checker converted %s", ds.Name)
		_, err := ds.Set.Dense()
		require.NoError(t, err)
	}
	dn, err = CompileWith(m, *o)
	require.NoError(t, err)
	require.Zero(t, countSparse(dn))
	return sp, dn
}

func countSparse(p *Program) int {
	n := 0
	for _, in := range p.insts {
		if in.op == opDot && in.mode == dotSparse {
			n++
		}
	}
	return n
}

// requireClose requires every value and subgradient of a and b to agree to
// tol relative to the largest magnitude of each.
func requireClose(t *testing.T, a, b [][]float64, tol float64) {
	t.Helper()
	for i := range a {
		scale := 0.0
		for _, v := range b[i] {
			scale = math.Max(scale, math.Abs(v))
		}
		for j := range a[i] {
			require.InDelta(t, b[i][j], a[i][j], tol*math.Max(scale, 1e-300), "result %d, element %d", i, j)
		}
	}
}

// TestSparseAgreesDense checks the values and subgradients of every sparse
// form against the same model on the same data made dense, at random
// points, on all rows and on a sample; the sparse program is also checked
// against finite differences, for bitwise equality on 1, 2 and 4 cores and
// for allocations.
func TestSparseAgreesDense(t *testing.T) {
	dir := t.TempDir()
	sparseGen{n: 1500, d: 400, perRow: 4, classes: 3}.write(t, filepath.Join(dir, "d.svm"))
	path := filepath.Join(dir, "m.qrc")
	m, _, diags := modelfile.LoadSource(path, []byte(sparseModel), check.Options{})
	require.NotNil(t, m, "%v", diags)
	sp, dn := compileSparseAndDense(t, m, allParallel(testOptions()))
	require.Equal(t, 5, countSparse(sp), "logistic, one per class, hinge")
	rng := rand.New(rand.NewPCG(3, 4))
	for range 3 {
		x := randomPoint(m, rng)
		requireClose(t, evalAll(t, sp, x), evalAll(t, dn, x), 1e-12)
	}
	// a sample of the rows of each sample set
	x := randomPoint(m, rng)
	for s, smp := range sp.Samples() {
		pos := make([]int, smp.Rows/3)
		for k := range pos {
			pos[k] = rng.IntN(smp.Rows)
		}
		require.NoError(t, sp.SetSample(s, pos))
		require.NoError(t, dn.SetSample(s, pos))
	}
	requireClose(t, evalAll(t, sp, x), evalAll(t, dn, x), 1e-12)
	sp.ResetSamples()
	dn.ResetSamples()

	// bitwise the same on any number of cores
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var want [][]float64
	for _, procs := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(procs)
		for range 3 {
			got := evalAll(t, sp, x)
			if want == nil {
				want = got
				continue
			}
			for i := range want {
				for j := range want[i] {
					require.Equal(t, math.Float64bits(want[i][j]), math.Float64bits(got[i][j]), "GOMAXPROCS=%d, result %d, element %d", procs, i, j)
				}
			}
		}
	}
	runtime.GOMAXPROCS(1)
	vals := make([]float64, len(sp.Functions()))
	g := make([]float64, sp.NumVars())
	w := make([]float64, len(vals))
	for i := range w {
		w[i] = 1
	}
	run := func() {
		if err := sp.Eval(x, vals); err != nil {
			t.Fatal(err)
		}
		if err := sp.Gradient(w, g); err != nil {
			t.Fatal(err)
		}
	}
	requireNoAllocations(t, sp, run)
}

// TestSparseCompilerFallback compiles models whose sparse X the checker
// would have converted (an element in a nonlinear position, a filter on a
// feature, a sum over some features) with the set left sparse: the
// compiler makes the blocks it needs dense itself, and the values and
// subgradients equal those of the dense program.
func TestSparseCompilerFallback(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sparseGen{n: 400, d: 50, perRow: 6, classes: 3}.write(t, filepath.Join(dir, "d.svm"))
	src := `data D = libsvm("d.svm")
var w[D.d] in box(-1, 1)
minimize mean(i in D) abs(D.X[i, 2] * w[2] - dot(w, D.X[i])) + mean(i in D where D.X[i, 3] != 0) sum(j in 1..10) w[j] * D.X[i, j]
subject to c: mean(i in D) sum(j in 1..D.d) (w[j] * D.X[i, j])^2 <= 1
`
	m, _, diags := modelfile.LoadSource(filepath.Join(dir, "m.qrc"), []byte(src), check.Options{})
	require.NotNil(t, m, "%v", diags)
	set := m.Data[0].Set
	require.NotNil(t, set.X, "the checker converts the set")
	dn, err := CompileWith(m, *testOptions())
	require.NoError(t, err)
	x := set.X
	set.X = nil // as if the checker had not
	sp, err := CompileWith(m, *testOptions())
	set.X = x
	require.NoError(t, err)
	require.Equal(t, 1, countSparse(sp), "dot(w, D.X[i]) still runs sparse")
	rng := rand.New(rand.NewPCG(8, 9))
	for range 3 {
		x := randomPoint(m, rng)
		requireClose(t, evalAll(t, sp, x), evalAll(t, dn, x), 1e-12)
	}
}

// TestSparseFiniteDifferences checks the sparse program's subgradients
// against central differences, on a smooth model (the hinge's kink is
// left out).
func TestSparseFiniteDifferences(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sparseGen{n: 300, d: 60, perRow: 5, classes: 3}.write(t, filepath.Join(dir, "d.svm"))
	src := `data D = libsvm("d.svm")
var w[D.d] in box(-1, 1)
var v[D.d] in box(-1, 1)
minimize mean(i in D) log(1 + exp(-(D.y[i] - 2) * dot(w, D.X[i]))) + mean(i in D) sigmoid(sum(j in 1..D.d) v[j] * D.X[i, j])
subject to c: mean(i in D where D.y[i] == 2) sigmoid(dot(D.X[i], w - v)) <= 0.3
`
	m, _, diags := modelfile.LoadSource(filepath.Join(dir, "m.qrc"), []byte(src), check.Options{})
	require.NotNil(t, m, "%v", diags)
	p, err := CompileWith(m, *testOptions())
	require.NoError(t, err)
	require.Equal(t, 3, countSparse(p))
	x := randomPoint(m, rand.New(rand.NewPCG(5, 6)))
	require.Less(t, fdCheck(t, p, x), 1e-6)
}

// heapInUse returns the live heap after a collection.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestSparseLarge evaluates a logistic regression on 10^4 rows of 10^5
// features at 0.1% density (10^6 nonzeros; 8 GB as a dense matrix) and
// checks the value and gradient against a plain loop over the generated
// rows, and that the heap the loaded set and the program keep stays near
// the CSR arrays' size.
func TestSparseLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and loads a 10^4 × 10^5 set")
	}
	gen := sparseGen{n: 10_000, d: 100_000, perRow: 100}
	dir := t.TempDir()
	gen.write(t, filepath.Join(dir, "d.svm"))
	src := `data D = libsvm("d.svm")
var w[D.d] in box(-1, 1)
minimize mean(i in D) log(1 + exp(-D.y[i] * dot(w, D.X[i])))
`
	before := heapInUse()
	m, _, diags := modelfile.LoadSource(filepath.Join(dir, "m.qrc"), []byte(src), check.Options{})
	require.NotNil(t, m, "%v", diags)
	set := m.Data[0].Set
	require.True(t, set.IsSparse())
	p, err := CompileWith(m, *testOptions())
	require.NoError(t, err)
	require.Equal(t, 1, countSparse(p))
	x := randomPoint(m, rand.New(rand.NewPCG(1, 2)))
	vals := []float64{0}
	g := make([]float64, p.NumVars())
	require.NoError(t, p.Eval(x, vals))
	require.NoError(t, p.Gradient([]float64{1}, g))
	retained := heapInUse() - before
	csr := set.Sparse.Bytes()
	t.Logf("retained heap %.1f MB, CSR arrays %.1f MB, nonzeros %d", float64(retained)/1e6, float64(csr)/1e6, set.Sparse.NNZ())
	require.Nil(t, set.X)
	// the CSR arrays, the labels, the point's vectors and the blocks'
	// partial adjoints (no more floats than nonzeros) and the arena
	require.Less(t, retained, 2*csr+16<<20, "retained %d bytes against %d of CSR", retained, csr)

	// the reference: a plain loop over the generated rows
	want, wantG := 0.0, make([]float64, gen.d)
	for i := range gen.n {
		y, cols, v := gen.row(i)
		z := 0.0
		for k, j := range cols {
			z += v[k] * x[j]
		}
		want += math.Log1p(math.Exp(-y * z))
		s := -y / (1 + math.Exp(y*z)) / float64(gen.n)
		for k, j := range cols {
			wantG[j] += s * v[k]
		}
	}
	want /= float64(gen.n)
	require.InDelta(t, want, vals[0], 1e-12*want)
	scale := 0.0
	for _, v := range wantG {
		scale = math.Max(scale, math.Abs(v))
	}
	for j := range g {
		require.InDelta(t, wantG[j], g[j], 1e-12*scale, "gradient %d", j)
	}
	runtime.KeepAlive(m)
	runtime.KeepAlive(p)
}

// TestSparseA9A checks the sparse program on ../shared/data/a9a.t (16 281
// rows, 123 binary features, 11% nonzero) against the dense one, for a
// logistic loss by dot and a hinge by a sum over the features.
func TestSparseA9A(t *testing.T) {
	t.Parallel()
	path := shareddata.Require(t, "a9a.t")
	src := fmt.Sprintf(`data D = libsvm(%q)
var w[D.d] in box(-1, 1)
var b in box(-1, 1)
minimize mean(i in D) log(1 + exp(-D.y[i] * (dot(w, D.X[i]) + b)))
subject to hinge: mean(i in D) max(0, 1 - D.y[i] * sum(j in 1..D.d) w[j] * D.X[i, j]) <= 0.8
`, path)
	m, _, diags := modelfile.LoadSource(filepath.Join(t.TempDir(), "m.qrc"), []byte(src), check.Options{})
	require.NotNil(t, m, "%v", diags)
	require.True(t, m.Data[0].Set.IsSparse(), "a9a.t is stored sparse")
	sp, dn := compileSparseAndDense(t, m, testOptions())
	require.Equal(t, 2, countSparse(sp))
	rng := rand.New(rand.NewPCG(11, 12))
	for range 3 {
		x := randomPoint(m, rng)
		requireClose(t, evalAll(t, sp, x), evalAll(t, dn, x), 1e-12)
	}
}

// TestSparseDenseFallback checks that a use of a sparse X other than a
// dot product makes the checker convert the set, and that the model then
// evaluates as before; and that one too large to convert is refused.
func TestSparseDenseFallback(t *testing.T) {
	dir := t.TempDir()
	sparseGen{n: 200, d: 300, perRow: 3}.write(t, filepath.Join(dir, "d.svm"))
	src := `data D = libsvm("d.svm")
var w[D.d] in box(-1, 1)
minimize mean(i in D) abs(D.X[i, 2] * w[2] - dot(w, D.X[i]))
`
	m, _, diags := modelfile.LoadSource(filepath.Join(dir, "m.qrc"), []byte(src), check.Options{})
	require.NotNil(t, m, "%v", diags)
	require.NotNil(t, m.Data[0].Set.X, "converted for the elementwise use")
	p, err := CompileWith(m, *testOptions())
	require.NoError(t, err)
	require.Zero(t, countSparse(p))

	// nor does a filter on a feature that the checker resolves to rows
	src = `data D = libsvm("d.svm")
var w[D.d] in box(-1, 1)
minimize mean(i in D where D.X[i, 5] != 0 or i <= 50) log(1 + exp(-D.y[i] * dot(w, D.X[i])))
`
	m, _, diags = modelfile.LoadSource(filepath.Join(dir, "m.qrc"), []byte(src), check.Options{})
	require.NotNil(t, m, "%v", diags)
	require.True(t, m.Data[0].Set.X == nil, "the set was converted")
	p, err = CompileWith(m, *testOptions())
	require.NoError(t, err)
	require.Equal(t, 1, countSparse(p))
	require.Equal(t, 1, len(p.Samples()))
	gen := sparseGen{n: 200, d: 300, perRow: 3}
	var rows []int
	for i := range gen.n {
		_, cols, _ := gen.row(i)
		if slices.Contains(cols, 4) || i < 50 {
			rows = append(rows, i)
		}
	}
	require.Equal(t, len(rows), p.Samples()[0].Rows)
	x := randomPoint(m, rand.New(rand.NewPCG(1, 5)))
	want := 0.0
	for _, i := range rows {
		y, cols, v := gen.row(i)
		z := 0.0
		for k, j := range cols {
			z += v[k] * x[j]
		}
		want += math.Log1p(math.Exp(-y*z)) / float64(len(rows))
	}
	vals := []float64{0}
	require.NoError(t, p.Eval(x, vals))
	require.InDelta(t, want, vals[0], 1e-12)

	// a parameter reading an element and a row does not convert the set
	src = `data D = libsvm("d.svm")
param a = D.X[200, 300]
param r = sum(j in 1..D.d) D.X[1, j]
var w[D.d] in box(-1, 1)
minimize mean(i in D) a * r * dot(w, D.X[i])
`
	m, _, diags = modelfile.LoadSource(filepath.Join(dir, "m.qrc"), []byte(src), check.Options{})
	require.NotNil(t, m, "%v", diags)
	require.True(t, m.Data[0].Set.X == nil, "the set was converted")
	_, cols, vals := sparseGen{n: 200, d: 300, perRow: 3}.row(0)
	r := 0.0
	for k := range cols {
		r += vals[k]
	}
	require.Equal(t, 0.5, m.Params[0].Value.Data[0], "the element the writer added to the last row")
	require.Equal(t, r, m.Params[1].Value.Data[0])

	// too large to convert: refused at check time with the size
	t.Setenv(data.MemoryEnv, "200MB")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "big.svm"), []byte("1 1:1\n-1 100000000:0.5\n"), 0o644))
	src = `data D = libsvm("big.svm")
var w
minimize mean(i in D) abs(D.X[i, 1] * w)
`
	m, _, diags = modelfile.LoadSource(filepath.Join(dir, "m.qrc"), []byte(src), check.Options{})
	require.Nil(t, m)
	require.Contains(t, diags.Error(), "cannot use D.X")
	require.Contains(t, diags.Error(), "a dense 2 × 100000000 matrix of this sparse set")
}

// TestSparseAgainstKernel compares the compiled logistic regression on the
// generated 10^4 × 10^5 set with the hand-written CSR kernel the benchmark
// runs beside it.
func TestSparseAgainstKernel(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes and loads a 10^4 × 10^5 set")
	}
	m, p := loadSparseLogistic(t, t.TempDir())
	x := randomPoint(m, rand.New(rand.NewPCG(3, 3)))
	h, err := npcref.NewLogistic(m.Data[0].Set)
	require.NoError(t, err)
	h.Eval(x)
	got := evalAll(t, p, x)
	require.InDelta(t, h.Val, got[0][0], 1e-12*h.Val)
	requireClose(t, got[1:], [][]float64{h.Grad}, 1e-12)
}
