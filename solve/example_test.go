package solve_test

import (
	"context"
	"fmt"

	"github.com/qrc-lang/qrc/solve"
)

// Minimise ||x - c||^2 subject to ||x||^2 <= 1 with c = (3, 4), outside the
// unit disc: the answer is c/||c|| = (0.6, 0.8), with multiplier
// ||c|| - 1 = 4.
func Example() {
	c := []float64{3, 4}
	var at []float64 // the x of the last Eval, for Grad
	p := &solve.Problem{
		N: 2, M: 1,
		Names: []string{"unit_disc"},
		Eval: func(x, vals []float64) error {
			at = append(at[:0], x...)
			vals[0] = (x[0]-c[0])*(x[0]-c[0]) + (x[1]-c[1])*(x[1]-c[1]) // f0
			vals[1] = x[0]*x[0] + x[1]*x[1] - 1                         // f1 <= 0
			return nil
		},
		Grad: func(w, g []float64) error {
			for j := range g {
				g[j] = w[0]*2*(at[j]-c[j]) + w[1]*2*at[j]
			}
			return nil
		},
		// Project: nil, x ranges over all of R^2
	}
	res, err := solve.Minimize(context.Background(), p, []float64{0, 0}, solve.Settings{Inner: 10000})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("status:", res.Status)
	fmt.Printf("x = (%.2f, %.2f), f0 = %.2f, infeasibility <= 1e-3: %v\n", res.X[0], res.X[1], res.Objective, res.Infeasibility <= 1e-3)
	fmt.Printf("multiplier %.1f, nearly stationary: %v\n", res.Certificate.Multipliers[0], res.Certificate.Stationary)
	// Output:
	// status: converged
	// x = (0.60, 0.80), f0 = 16.00, infeasibility <= 1e-3: true
	// multiplier 4.0, nearly stationary: true
}
