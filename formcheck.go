package qrc

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/qrc-lang/qrc/solve"
)

// formDisagrees checks a model's functions written in another form (the
// dual oracle's pieces, the prox oracle's separable rest plus kinks)
// against prob's own compiled functions at three points of X: the origin
// and two pseudo-random points (seeded by seed), scaled by 1 and 10 and
// projected. values stores the form's f0..fM at x; before, if not nil,
// sees each point before its projection. It returns "" when they agree to
// 1e-9 relative, else why (naming form); a point prob cannot evaluate
// proves nothing and is skipped.
func formDisagrees(prob *solve.Problem, seed uint64, form string, values func(x, vals []float64) error, before func(x []float64)) string {
	rng := rand.New(rand.NewPCG(30, seed))
	x := make([]float64, prob.N)
	want, got := make([]float64, prob.M+1), make([]float64, prob.M+1)
	for k, scale := range []float64{0, 1, 10} {
		for j := range x {
			x[j] = scale * (2*rng.Float64() - 1)
		}
		if before != nil {
			before(x)
		}
		if prob.Project != nil {
			prob.Project(x)
		}
		if err := prob.Eval(x, want); err != nil {
			continue
		}
		if err := values(x, got); err != nil {
			return fmt.Sprintf("the %s cannot be evaluated at test point %d: %v", form, k, err)
		}
		for i := range want {
			if math.Abs(want[i]-got[i]) > 1e-9*(1+math.Abs(want[i])) {
				return fmt.Sprintf("the %s disagrees with the compiled function %d at test point %d (%g against %g)", form, i, k, got[i], want[i])
			}
		}
	}
	return ""
}
