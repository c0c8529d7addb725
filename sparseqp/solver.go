package sparseqp

import (
	"errors"
	"math"
)

// Solver solves programs of one pattern: the dimensions n and m and the
// positions of the entries of P and A, fixed by NewSolver. Its KKT system's
// order and symbolic factorisation are computed once, and it owns every
// buffer the iterations use, so that each Solve allocates only its Result.
// Q, L, U, LB, UB and the values of P and A may change from one Solve to
// the next. A Solver is not safe for concurrent use.
type Solver struct {
	set  Settings
	n, m int
	pPat *CSC // patterns analysed (values unused)
	aPat *CSC

	// the upper triangle of K = [P + Wx, Aᵀ; A, −Wy⁻¹], of order n+m
	kkt    *CSC
	base   []float64 // kkt's values with P and A scattered, diagonals of P only
	pPos   []int     // P entry → position in kkt (−1 below the diagonal)
	aPos   []int     // A entry → position in kkt
	diag   []int     // position of (k, k) in kkt, k < n+m
	aRow   []int     // row of each A entry
	sign   []int8
	ldl    *LDL
	sol    []float64 // solution of a KKT solve
	rhs    []float64
	state  ipmState
	sc     scaling
	admmSt admmState
}

// NewSolver analyses the pattern of p (which is validated) for repeated
// solves: the KKT system's minimum-degree order and its factor's
// structure. An error says what is wrong with p, or that the factor would
// exceed Settings.MaxFactorNonzeros.
func NewSolver(p *Problem, s Settings) (*Solver, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	s = s.withDefaults()
	n := len(p.Q)
	sv := &Solver{set: s, n: n}
	if p.P != nil {
		sv.pPat = patternOf(p.P)
	} else {
		sv.pPat = &CSC{Rows: n, Cols: n, ColPtr: make([]int, n+1)}
	}
	if p.A != nil {
		sv.aPat = patternOf(p.A)
		sv.m = p.A.Rows
	} else {
		sv.aPat = &CSC{Rows: 0, Cols: n, ColPtr: make([]int, n+1)}
	}
	sv.buildKKT()
	ldl, err := NewLDL(sv.kkt, s.MaxFactorNonzeros)
	if err != nil {
		return nil, err
	}
	sv.ldl = ldl
	N := n + sv.m
	sv.sign = make([]int8, N)
	for k := range N {
		sv.sign[k] = 1
		if k >= n {
			sv.sign[k] = -1
		}
	}
	sv.sol = make([]float64, N)
	sv.rhs = make([]float64, N)
	sv.state.alloc(n, sv.m)
	sv.sc.alloc(n, sv.m, sv.pPat, sv.aPat)
	sv.admmSt.alloc(n, sv.m)
	sv.sc.alloc(n, sv.m, sv.pPat, sv.aPat)
	sv.admmSt.alloc(n, sv.m)
	return sv, nil
}

func patternOf(a *CSC) *CSC {
	return &CSC{Rows: a.Rows, Cols: a.Cols, ColPtr: append([]int(nil), a.ColPtr...),
		RowIdx: append([]int(nil), a.RowIdx[:a.Nnz()]...)}
}

// buildKKT lays out the upper triangle of the KKT matrix: column j < n
// holds P's entries above the diagonal and (j, j); column n+i holds row i
// of A (rows j < n, increasing) and (n+i, n+i).
func (sv *Solver) buildKKT() {
	n, m := sv.n, sv.m
	P, A := sv.pPat, sv.aPat
	N := n + m
	// Aᵀ's pattern with the index of each entry in A
	tp := make([]int, m+1)
	for _, i := range A.RowIdx {
		tp[i+1]++
	}
	for i := range m {
		tp[i+1] += tp[i]
	}
	tj := make([]int, A.Nnz())
	tsrc := make([]int, A.Nnz())
	next := append([]int(nil), tp[:m]...)
	sv.aRow = make([]int, A.Nnz())
	for j := range n {
		for p := A.ColPtr[j]; p < A.ColPtr[j+1]; p++ {
			i := A.RowIdx[p]
			tj[next[i]] = j
			tsrc[next[i]] = p
			next[i]++
			sv.aRow[p] = i
		}
	}
	k := &CSC{Rows: N, Cols: N, ColPtr: make([]int, N+1)}
	sv.pPos = make([]int, P.Nnz())
	sv.aPos = make([]int, A.Nnz())
	sv.diag = make([]int, N)
	for j := range n {
		for p := P.ColPtr[j]; p < P.ColPtr[j+1]; p++ {
			i := P.RowIdx[p]
			switch {
			case i < j:
				sv.pPos[p] = len(k.RowIdx)
				k.RowIdx = append(k.RowIdx, i)
			case i > j:
				sv.pPos[p] = -1
			}
		}
		sv.diag[j] = len(k.RowIdx)
		k.RowIdx = append(k.RowIdx, j)
		for p := P.ColPtr[j]; p < P.ColPtr[j+1]; p++ {
			if P.RowIdx[p] == j {
				sv.pPos[p] = sv.diag[j]
			}
		}
		k.ColPtr[j+1] = len(k.RowIdx)
	}
	for i := range m {
		for q := tp[i]; q < tp[i+1]; q++ {
			sv.aPos[tsrc[q]] = len(k.RowIdx)
			k.RowIdx = append(k.RowIdx, tj[q])
		}
		sv.diag[n+i] = len(k.RowIdx)
		k.RowIdx = append(k.RowIdx, n+i)
		k.ColPtr[n+i+1] = len(k.RowIdx)
	}
	k.Val = make([]float64, len(k.RowIdx))
	sv.kkt = k
	sv.base = make([]float64, len(k.RowIdx))
}

// errPattern says Solve got a program of another pattern.
var errPattern = errors.New("sparseqp: Solve given a program of another pattern than NewSolver's (dimensions or positions of the entries of P or A)")

// Solve solves p, which must have the pattern NewSolver analysed. The
// error is for a malformed program or another pattern; every outcome of
// the method itself is a Status of the Result.
func (sv *Solver) Solve(p *Problem) (*Result, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if len(p.Q) != sv.n {
		return nil, errPattern
	}
	if p.P == nil && sv.pPat.Nnz() != 0 || p.P != nil && !samePattern(p.P, sv.pPat) {
		return nil, errPattern
	}
	if p.A == nil && sv.m != 0 || p.A != nil && !samePattern(p.A, sv.aPat) {
		return nil, errPattern
	}
	sv.sc.equilibrate(p, sv.set.NoScaling)
	sp := &sv.sc.sp
	clear(sv.base)
	for q, pos := range sv.pPos {
		if pos >= 0 {
			sv.base[pos] = sp.P.Val[q]
		}
	}
	for q, pos := range sv.aPos {
		sv.base[pos] = sp.A.Val[q]
	}
	if sv.set.Method == ADMM {
		return sv.admm(p, sp), nil
	}
	r := sv.ipm(p, sp)
	if r.Status == Solved {
		sv.remember(r)
	}
	return r, nil
}

// normInf is the largest |v_i|.
func normInf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		if a := math.Abs(x); a > m {
			m = a
		}
	}
	return m
}
