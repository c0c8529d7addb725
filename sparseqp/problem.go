package sparseqp

import (
	"errors"
	"fmt"
	"math"
)

// Problem is the convex quadratic program
//
//	minimize    ½ xᵀPx + qᵀx
//	subject to  L <= Ax <= U,  LB <= x <= UB
//
// of n = len(Q) variables and m = len(L) rows.
//
//   - P is n×n, symmetric positive semidefinite; only its upper triangle
//     (entries i <= j) is read, so P may be given as its upper triangle or
//     in full. nil means P = 0 (a linear program). That P is semidefinite
//     is not checked; for an indefinite P the method's results mean
//     nothing (it may report NumericalError).
//   - A is m×n; nil means no rows (then L and U are empty).
//   - L and U have length m; L[i] may be −Inf and U[i] +Inf (a row with
//     both is free, its multiplier 0), L[i] = U[i] is an equality row.
//   - LB and UB have length n, or are nil for −Inf and +Inf throughout;
//     LB[j] = UB[j] fixes x[j].
//
// Every coefficient must be finite except the bounds' infinities, and
// L <= U, LB <= UB entrywise; Validate says what is wrong and where.
type Problem struct {
	P      *CSC
	Q      []float64
	A      *CSC
	L, U   []float64
	LB, UB []float64
}

// Validate reports the first thing wrong with p: shapes, a matrix that
// breaks the CSC invariants, a coefficient that is NaN or infinite, a
// bound that is NaN, a lower bound of +Inf or an upper bound of −Inf, or
// crossed bounds.
func (p *Problem) Validate() error {
	if p == nil {
		return errors.New("sparseqp: nil problem")
	}
	n := len(p.Q)
	if n == 0 {
		return errors.New("sparseqp: no variables")
	}
	if p.P != nil {
		if err := p.P.Check(); err != nil {
			return fmt.Errorf("sparseqp: P: %w", err)
		}
		if p.P.Rows != n || p.P.Cols != n {
			return fmt.Errorf("sparseqp: P is %d×%d for %d variables", p.P.Rows, p.P.Cols, n)
		}
	}
	m := 0
	if p.A != nil {
		if err := p.A.Check(); err != nil {
			return fmt.Errorf("sparseqp: A: %w", err)
		}
		if p.A.Cols != n {
			return fmt.Errorf("sparseqp: A has %d columns for %d variables", p.A.Cols, n)
		}
		m = p.A.Rows
	}
	if len(p.L) != m || len(p.U) != m {
		return fmt.Errorf("sparseqp: %d rows, %d lower and %d upper row bounds", m, len(p.L), len(p.U))
	}
	for j, v := range p.Q {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("sparseqp: q[%d] is %g", j, v)
		}
	}
	if err := checkBounds("row", p.L, p.U); err != nil {
		return err
	}
	if p.LB != nil && len(p.LB) != n || p.UB != nil && len(p.UB) != n {
		return fmt.Errorf("sparseqp: %d variables, %d lower and %d upper bounds", n, len(p.LB), len(p.UB))
	}
	lb, ub := p.LB, p.UB
	if lb == nil {
		lb = filled(n, math.Inf(-1))
	}
	if ub == nil {
		ub = filled(n, math.Inf(1))
	}
	return checkBounds("variable", lb, ub)
}

func checkBounds(what string, lo, hi []float64) error {
	for i := range lo {
		l, u := lo[i], hi[i]
		switch {
		case math.IsNaN(l) || math.IsNaN(u):
			return fmt.Errorf("sparseqp: %s %d has bounds [%g, %g]", what, i, l, u)
		case math.IsInf(l, 1) || math.IsInf(u, -1):
			return fmt.Errorf("sparseqp: %s %d has bounds [%g, %g], an infinite bound on the wrong side", what, i, l, u)
		case l > u:
			return fmt.Errorf("sparseqp: %s %d has crossed bounds [%g, %g]", what, i, l, u)
		}
	}
	return nil
}

func filled(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// Status is the outcome of a solve. Each is a promise about the returned
// Result, checked on the returned numbers themselves (not on the method's
// internal iterates).
type Status int

const (
	// Solved: X satisfies the bounds LB <= X <= UB exactly and the rows to
	// PrimalResidual; (X, Y, Z) satisfy stationarity to DualResidual; and
	// the duality gap is Gap; each row, variable and the gap within
	// Settings' tolerances (see Settings).
	Solved Status = iota + 1
	// PrimalInfeasible: Y and Z hold a certificate of infeasibility (a
	// Farkas vector; Result.Certificate says how strong it is), X is the
	// last iterate.
	PrimalInfeasible
	// DualInfeasible: X holds a direction of unbounded descent (Pd ≈ 0,
	// qᵀd < 0, d in the recession cone of the constraints): the dual is
	// infeasible, and the program, if feasible, is unbounded below.
	DualInfeasible
	// IterationLimit: Settings.MaxIter iterations ran without any of the
	// above; the result holds the last iterate and its residuals.
	IterationLimit
	// NumericalError: the iterates stopped being finite or the KKT
	// system could not be solved accurately; the result holds the last
	// finite iterate and its residuals.
	NumericalError
)

func (s Status) String() string {
	switch s {
	case Solved:
		return "solved"
	case PrimalInfeasible:
		return "primal infeasible"
	case DualInfeasible:
		return "dual infeasible"
	case IterationLimit:
		return "iteration limit"
	case NumericalError:
		return "numerical error"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Settings control a solve. The zero value of a field means its default
// (DefaultSettings).
//
// A result is Solved when, with x the returned X (inside its bounds),
// every row's violation of its bounds is at most AbsTol + RelTol·(the size
// of its terms, Σ_j |A_ij x_j|, or of its bound if larger), every
// variable's stationarity residual |(Px + q + Aᵀy + z)_j| at most AbsTol +
// RelTol·(|q_j| + Σ_k |P_jk x_k| + Σ_i |A_ij y_i| + |z_j|), and
// |Gap| <= AbsTol + RelTol·max(|Objective|, |DualObjective|). The tests are
// row by row and variable by variable, so that they do not depend on the
// units of the others.
//
// A certificate of infeasibility is accepted with InfTol in place of the
// tolerances (see Certificate).
type Settings struct {
	AbsTol, RelTol float64
	InfTol         float64
	// MaxIter bounds the interior-point iterations.
	MaxIter int
	// Reg is the static regularisation of the KKT system (added to its
	// diagonal, +Reg on the variables' block, −Reg on the rows'); the
	// iterative refinement (RefineSteps rounds at most) solves the
	// unregularised system.
	Reg         float64
	RefineSteps int
	// MaxFactorNonzeros bounds the nonzeros of the KKT system's factor
	// (0: DefaultMaxFactorNonzeros); a larger factor is an error of
	// NewSolver, so memory stays bounded.
	MaxFactorNonzeros int
	// NoPolish turns off the polish: the exact solution on the interior
	// point's active set, returned when it measures better (Result.Polished).
	NoPolish bool
	// NoScaling turns off the equilibration (Ruiz's, of the KKT matrix's
	// columns, and of the cost): the method then runs on the program as
	// given. Statuses are decided on the program as given either way.
	NoScaling bool
	// Method is the algorithm: InteriorPoint (the default) or ADMM.
	Method Method
	// MaxADMMIter bounds ADMM's iterations (default 10000).
	MaxADMMIter int
	// WarmStart makes ADMM start from the Solver's last Solved result (in
	// the units of the program, mapped through the new scaling); the
	// interior point always starts cold.
	WarmStart bool
	// Halt, if not nil, is asked before every iteration (every check of
	// ADMM's) whether to stop: when it says so the solve ends with
	// IterationLimit and the best iterate so far (a time limit, a
	// cancelled context of the caller).
	Halt func() bool
}

// Method is the algorithm of a solve.
type Method int

const (
	// InteriorPoint is Mehrotra's predictor-corrector method: tens of
	// factorisations, 1e-9 on LPs and QPs alike (see docs/sparseqp.md).
	InteriorPoint Method = iota
	// ADMM is OSQP's alternating direction method on the same KKT
	// pattern: one factorisation (again when ρ is rebalanced) and a solve
	// per iteration, warm-startable, but first-order: many iterations to
	// 1e-9 on an LP. The polish finishes it as it finishes the interior
	// point.
	ADMM
)

// DefaultSettings: tolerances 1e-9, infeasibility tolerance 1e-9, 200
// iterations, regularisation 1e-8, 5 rounds of refinement.
var DefaultSettings = Settings{
	AbsTol:      1e-9,
	RelTol:      1e-9,
	InfTol:      1e-9,
	MaxIter:     200,
	Reg:         1e-8,
	RefineSteps: 5,
}

func (s Settings) withDefaults() Settings {
	d := DefaultSettings
	if s.AbsTol <= 0 {
		s.AbsTol = d.AbsTol
	}
	if s.RelTol <= 0 {
		s.RelTol = d.RelTol
	}
	if s.InfTol <= 0 {
		s.InfTol = d.InfTol
	}
	if s.MaxIter <= 0 {
		s.MaxIter = d.MaxIter
	}
	if s.Reg <= 0 {
		s.Reg = d.Reg
	}
	if s.RefineSteps <= 0 {
		s.RefineSteps = d.RefineSteps
	}
	if s.MaxADMMIter <= 0 {
		s.MaxADMMIter = 10000
	}
	if s.MaxFactorNonzeros <= 0 {
		s.MaxFactorNonzeros = DefaultMaxFactorNonzeros
	}
	return s
}

// Result is the outcome of a solve.
//
// Sign convention: the multipliers satisfy, at a solution,
//
//	Px + q + Aᵀy + z = 0,
//
// with y_i >= 0 when row i is at its upper bound U_i, y_i <= 0 at its
// lower bound L_i, y_i = 0 when strictly between (an equality row's y_i
// has either sign), and likewise z_j >= 0 at UB_j, z_j <= 0 at LB_j. A
// multiplier is never of the sign of an infinite bound: y_i > 0 only when
// U_i is finite, and so on. (This is OSQP's convention.)
type Result struct {
	Status  Status
	X, Y, Z []float64
	// Objective is ½xᵀPx + qᵀx at X; DualObjective is
	// −½xᵀPx − Σ(U_i y_i⁺ − L_i y_i⁻) − Σ(UB_j z_j⁺ − LB_j z_j⁻), the dual
	// function's value when the dual residual is zero; Gap is Objective −
	// DualObjective (the complementarity, >= 0 up to the residuals).
	Objective, DualObjective, Gap float64
	// PrimalResidual is the largest violation of a row bound by X (X is
	// inside its variable bounds); DualResidual is ‖Px + q + Aᵀy + z‖∞.
	PrimalResidual, DualResidual float64
	// Iterations is the number of interior-point iterations made.
	Iterations int
	// Polished says the point is the exact solution on the interior
	// point's active set (see Settings.NoPolish), not the iterate.
	Polished bool
	// Certificate describes the certificate of PrimalInfeasible or
	// DualInfeasible (zero otherwise).
	Certificate Certificate
}

// Certificate measures a certificate of infeasibility, normalised so its
// vector's largest entry is 1.
//
// For PrimalInfeasible, (Y, Z) has the sign pattern of the multipliers
// (see Result), Support = Σ(U_i y_i⁺ − L_i y_i⁻) + Σ(UB_j z_j⁺ −
// LB_j z_j⁻) and Residual = ‖Aᵀy + z‖∞. Every feasible x has
// yᵀAx + zᵀx <= Support, so when Support < 0 every feasible x has
// ‖x‖₁ >= −Support/Residual: no feasible point lies within that radius
// (Residual is exactly 0 when every variable that y touches is bounded on
// the side needed, and then it is a proof up to rounding). Z is the best
// for Y: z_j = −(Aᵀy)_j where that sign is allowed. Accepted when
// Residual <= InfTol and Support < −InfTol.
//
// For DualInfeasible, X = d with Residual = ‖Pd‖∞, Support = qᵀd, and
// RowViolation the largest amount by which Ad leaves the recession cone
// of [L, U] (d is exactly in that of [LB, UB]). Accepted when Residual
// and RowViolation are at most InfTol and Support < −InfTol; with both 0
// the objective decreases without bound along d from any feasible point.
// (Like OSQP's, these tests are absolute, on the program as given.)
type Certificate struct {
	Support, Residual, RowViolation float64
}

// Solve solves p with the settings s: NewSolver(p, s) and one Solve. Use a
// Solver to solve many programs of one pattern.
func Solve(p *Problem, s Settings) (*Result, error) {
	sv, err := NewSolver(p, s)
	if err != nil {
		return nil, err
	}
	return sv.Solve(p)
}
