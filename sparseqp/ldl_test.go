package sparseqp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestNewCSCSumsDuplicates(t *testing.T) {
	a, err := NewCSC(3, 2, []int{2, 0, 2, 1, 0}, []int{0, 1, 0, 1, 1}, []float64{1, 2, 3, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Check(); err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{0, 7}, {0, 4}, {4, 0}}
	for i := range 3 {
		for j := range 2 {
			if a.At(i, j) != want[i][j] {
				t.Errorf("A[%d][%d] = %g, want %g", i, j, a.At(i, j), want[i][j])
			}
		}
	}
	if a.Nnz() != 3 {
		t.Errorf("nnz = %d, want 3 (duplicates summed)", a.Nnz())
	}
	at := a.Transpose()
	for i := range 3 {
		for j := range 2 {
			if at.At(j, i) != want[i][j] {
				t.Errorf("Aᵀ[%d][%d] = %g, want %g", j, i, at.At(j, i), want[i][j])
			}
		}
	}
	y := make([]float64, 3)
	a.MulVec(y, []float64{1, 10})
	if !slices.Equal(y, []float64{70, 40, 4}) {
		t.Errorf("A x = %v", y)
	}
	x := make([]float64, 2)
	a.MulTransVec(x, []float64{1, 2, 3})
	if !slices.Equal(x, []float64{12, 15}) {
		t.Errorf("Aᵀ y = %v", x)
	}
}

func TestNewCSCErrors(t *testing.T) {
	for _, c := range []struct {
		ri, ci []int
		v      []float64
	}{
		{[]int{3}, []int{0}, []float64{1}},
		{[]int{0}, []int{-1}, []float64{1}},
		{[]int{0}, []int{0}, []float64{math.NaN()}},
		{[]int{0}, []int{0}, []float64{math.Inf(1)}},
		{[]int{0, 1}, []int{0}, []float64{1}},
	} {
		if _, err := NewCSC(3, 2, c.ri, c.ci, c.v); err == nil {
			t.Errorf("NewCSC(%v, %v, %v) gave no error", c.ri, c.ci, c.v)
		}
	}
}

// randomQuasidefinite returns the upper triangle of K = [H, Bᵀ; B, −G]
// with H (n×n) and G (m×m) sparse symmetric positive definite (diagonally
// dominant) and B sparse, and K itself dense.
func randomQuasidefinite(rng *rand.Rand, n, m int, density float64) (*CSC, *mat.SymDense) {
	N := n + m
	dense := mat.NewSymDense(N, nil)
	var ri, ci []int
	var v []float64
	add := func(i, j int, x float64) {
		if i > j {
			i, j = j, i
		}
		ri, ci, v = append(ri, i), append(ci, j), append(v, x)
		dense.SetSym(i, j, dense.At(i, j)+x)
	}
	rowSum := make([]float64, N)
	for i := range N {
		for j := i + 1; j < N; j++ {
			if rng.Float64() < density {
				x := rng.NormFloat64()
				if i >= n && j >= n || i < n && j < n {
					rowSum[i] += math.Abs(x)
					rowSum[j] += math.Abs(x)
					if i >= n {
						x = -x
					}
				}
				add(i, j, x)
			}
		}
	}
	for i := range N {
		d := rowSum[i] + 0.1 + rng.Float64()
		if i >= n {
			d = -d
		}
		add(i, i, d)
	}
	k, err := NewCSC(N, N, ri, ci, v)
	if err != nil {
		panic(err)
	}
	return k, dense
}

func TestLDLSolvesQuasidefinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 40 {
		n, m := 1+rng.IntN(30), rng.IntN(30)
		k, dense := randomQuasidefinite(rng, n, m, 0.15)
		f, err := NewLDL(k, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Factor(k, nil, 0); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		N := n + m
		b := make([]float64, N)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		x := make([]float64, N)
		res := f.SolveRefined(k, x, b, 3, 0)
		// against gonum's dense solve (an independent implementation)
		var want mat.VecDense
		if err := want.SolveVec(dense, mat.NewVecDense(N, b)); err != nil {
			t.Fatal(err)
		}
		for i := range x {
			if math.Abs(x[i]-want.AtVec(i)) > 1e-10*(1+math.Abs(want.AtVec(i))) {
				t.Fatalf("trial %d: x[%d] = %g, dense solve %g", trial, i, x[i], want.AtVec(i))
			}
		}
		// and the residual the method reports is the residual
		r := mat.NewVecDense(N, nil)
		r.MulVec(dense, mat.NewVecDense(N, x))
		r.SubVec(mat.NewVecDense(N, b), r)
		if got := mat.Norm(r, math.Inf(1)); math.Abs(got-res) > 1e-14*(1+mat.Norm(mat.NewVecDense(N, b), math.Inf(1))) || got > 1e-12 {
			t.Errorf("trial %d: residual %g, reported %g", trial, got, res)
		}
	}
}

// TestLDLRegularised factors a singular quasidefinite-pattern matrix (a
// zero (2,2) block and dependent rows of B) with the sign vector, and
// checks that refinement still solves a consistent system.
func TestLDLRegularised(t *testing.T) {
	// K = [I, Bᵀ; B, 0] with B = [1 1; 1 1] (dependent rows)
	k, err := NewCSC(4, 4, []int{0, 1, 0, 1, 0, 1}, []int{0, 1, 2, 2, 3, 3}, []float64{1, 1, 1, 1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewLDL(k, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Factor(k, nil, 0); err == nil {
		t.Error("singular matrix factored without regularisation")
	}
	if _, err := f.Factor(k, []int8{1, 1, -1, -1}, 1e-8); err != nil {
		t.Fatal(err)
	}
	// consistent right-hand side: x = (1, 1), y = (0.5, 0.5) gives
	// b = (1+1, 1+1, 2, 2)
	b := []float64{2, 2, 2, 2}
	x := make([]float64, 4)
	res := f.SolveRefined(k, x, b, 20, 0)
	if res > 1e-9 {
		t.Errorf("residual %g after refinement, x = %v", res, x)
	}
	if math.Abs(x[0]-1) > 1e-8 || math.Abs(x[1]-1) > 1e-8 {
		t.Errorf("x = %v, want (1, 1, ·, ·)", x)
	}
}

func TestLDLPatternMismatch(t *testing.T) {
	k, _ := NewCSC(2, 2, []int{0, 1}, []int{0, 1}, []float64{1, 1})
	k2, _ := NewCSC(2, 2, []int{0, 0, 1}, []int{0, 1, 1}, []float64{1, 0.5, 1})
	f, err := NewLDL(k, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Factor(k2, nil, 0); err == nil {
		t.Error("factored a matrix of another pattern")
	}
}

// TestMinDegreeArrow: an arrow matrix whose hub is node 0 has no fill when
// the hub is eliminated last, and n−1 columns of fill when first; the
// order must find the first (a tridiagonal too: no fill).
func TestMinDegreeNoFill(t *testing.T) {
	n := 50
	var ri, ci []int
	var v []float64
	for i := range n {
		ri, ci, v = append(ri, i), append(ci, i), append(v, float64(n))
		if i > 0 {
			ri, ci, v = append(ri, 0), append(ci, i), append(v, 1)
		}
	}
	arrow, _ := NewCSC(n, n, ri, ci, v)
	f, err := NewLDL(arrow, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f.FactorNnz() != n-1 {
		t.Errorf("arrow: L has %d nonzeros, want %d (no fill)", f.FactorNnz(), n-1)
	}
	if !isPermutation(f.perm) {
		t.Errorf("order is not a permutation: %v", f.perm)
	}
	ri, ci, v = nil, nil, nil
	for i := range n {
		ri, ci, v = append(ri, i), append(ci, i), append(v, 4)
		if i > 0 {
			ri, ci, v = append(ri, i-1), append(ci, i), append(v, 1)
		}
	}
	tri, _ := NewCSC(n, n, ri, ci, v)
	f, err = NewLDL(tri, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f.FactorNnz() != n-1 {
		t.Errorf("tridiagonal: L has %d nonzeros, want %d", f.FactorNnz(), n-1)
	}
	if _, err := NewLDL(arrow, 10); err == nil {
		t.Error("a factor of 49 nonzeros accepted under a bound of 10")
	}
	// a dense 60×60 pattern: 1770 nonzeros in L and about 7e4 operations,
	// refused under a bound of 500 nonzeros (5e4 operations) whatever the
	// order
	var dr, dc []int
	var dv []float64
	for j := range 60 {
		for i := 0; i <= j; i++ {
			dr, dc, dv = append(dr, i), append(dc, j), append(dv, 1)
		}
	}
	full, _ := NewCSC(60, 60, dr, dc, dv)
	if _, err := NewLDL(full, 500); err == nil {
		t.Error("a dense 60×60 factor accepted under a bound of 500 nonzeros")
	}
	if _, err := NewLDL(full, 0); err != nil {
		t.Errorf("a dense 60×60 factor refused by default: %v", err)
	}
}

func isPermutation(p []int) bool {
	seen := make([]bool, len(p))
	for _, v := range p {
		if v < 0 || v >= len(p) || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}
