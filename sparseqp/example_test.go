package sparseqp_test

import (
	"fmt"
	"math"

	"github.com/qrc-lang/qrc/sparseqp"
)

// The projection of (3, 4) onto the half-plane x + y <= 1 within the box
// [0, 10]²: minimize ½‖x‖² − (3, 4)·x on those constraints.
func Example() {
	P, _ := sparseqp.NewCSC(2, 2, []int{0, 1}, []int{0, 1}, []float64{1, 1})
	A, _ := sparseqp.NewCSC(1, 2, []int{0, 0}, []int{0, 1}, []float64{1, 1})
	p := &sparseqp.Problem{
		P: P, Q: []float64{-3, -4},
		A: A, L: []float64{math.Inf(-1)}, U: []float64{1},
		LB: []float64{0, 0}, UB: []float64{10, 10},
	}
	r, err := sparseqp.Solve(p, sparseqp.Settings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Status)
	fmt.Printf("x = (%.6f, %.6f), y = %.6f\n", r.X[0], r.X[1], r.Y[0])
	// Output:
	// solved
	// x = (0.000000, 1.000000), y = 3.000000
}

// A Solver analyses a pattern once and solves many programs of it: here
// the same half-plane projection from other points.
func ExampleSolver() {
	P, _ := sparseqp.NewCSC(2, 2, []int{0, 1}, []int{0, 1}, []float64{1, 1})
	A, _ := sparseqp.NewCSC(1, 2, []int{0, 0}, []int{0, 1}, []float64{1, 1})
	p := &sparseqp.Problem{P: P, Q: []float64{0, 0}, A: A, L: []float64{math.Inf(-1)}, U: []float64{1}}
	sv, err := sparseqp.NewSolver(p, sparseqp.Settings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range [][2]float64{{3, 4}, {0, 0}, {2, 2}} {
		p.Q[0], p.Q[1] = -c[0], -c[1]
		r, err := sv.Solve(p)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%v: (%.3f, %.3f)\n", c, round3(r.X[0]), round3(r.X[1]))
	}
	// Output:
	// [3 4]: (0.000, 1.000)
	// [0 0]: (0.000, 0.000)
	// [2 2]: (0.500, 0.500)
}

// round3 rounds to 3 decimals, without a negative zero.
func round3(v float64) float64 { return math.Round(v*1000)/1000 + 0 }
