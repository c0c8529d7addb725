package qrc_test

import (
	"context"
	"fmt"
	"log"

	"gonum.org/v1/gonum/mat"

	"github.com/qrc-lang/qrc"
	"github.com/qrc-lang/qrc/data"
)

// budgetModel fits a linear model to data with a budget on the weights'
// squared norm.
const budgetModel = `
data obs = csv("obs.csv", label = "y")   # given in memory below: the file is not read

param budget = 6

var w[obs.d] in box(-10, 10)

minimize mean(i in obs) (dot(obs.X[i], w) - obs.y[i])^2

subject to
    size: dot(w, w) <= budget
`

// observations are y = 2 x1 - x2 on four points, built in Go.
func observations() *data.Set {
	X := mat.NewDense(4, 2, []float64{
		1, 0,
		0, 1,
		1, 1,
		2, 1,
	})
	return &data.Set{X: X, Y: []float64{2, -1, 1, 3}}
}

// Solve a model given as a string, with its data built in Go.
func Example() {
	m, err := qrc.Parse("budget.qrc", budgetModel, qrc.WithData("obs", observations()))
	if err != nil {
		log.Fatal(err)
	}
	rep, err := m.Solve(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	w, _ := m.Var(rep.X(), "w")
	fmt.Printf("%s: w = [%.2f, %.2f], objective %.4f\n", rep.Status, w[0], w[1], rep.Objective)
	// Output:
	// converged: w = [2.00, -1.00], objective 0.0000
}

// Re-solve after changing a parameter, warm-started from the last
// solution: the budget (2, below the unconstrained fit's 5) now binds, and
// its multiplier is positive.
func ExampleModel_Solve_warmStart() {
	ctx := context.Background()
	m, err := qrc.Parse("budget.qrc", budgetModel, qrc.WithData("obs", observations()))
	if err != nil {
		log.Fatal(err)
	}
	first, err := m.Solve(ctx)
	if err != nil {
		log.Fatal(err)
	}

	m, err = qrc.Parse("budget.qrc", budgetModel, qrc.WithData("obs", observations()), qrc.WithParam("budget", 2.0))
	if err != nil {
		log.Fatal(err)
	}
	rep, err := m.Solve(ctx, qrc.WithStart(first.X()))
	if err != nil {
		log.Fatal(err)
	}
	size := rep.Constraints[0]
	fmt.Printf("%s: size slack %.2f, multiplier positive: %v\n", rep.Status, size.Slack, size.Multiplier != nil && *size.Multiplier > 0)
	// Output:
	// converged: size slack 0.00, multiplier positive: true
}

// outerCounter is a Recorder that counts the outer iterations of each
// phase and remembers the oracle.
type outerCounter struct {
	oracle string
	outer  map[string]int
}

func (c *outerCounter) Init(r qrc.Run) error {
	c.oracle, c.outer = r.Oracle, map[string]int{}
	return nil
}

func (c *outerCounter) Record(it qrc.Iteration) error {
	if it.K == 0 { // an outer iteration (inner records have K > 0)
		c.outer[it.Phase]++
	}
	return nil
}

func (c *outerCounter) Finish() {}

// Pass a Recorder of your own to follow a solve (qrc.NewPrinter prints qrc
// solve's progress table).
func ExampleRecorder() {
	m, err := qrc.Parse("budget.qrc", budgetModel, qrc.WithData("obs", observations()))
	if err != nil {
		log.Fatal(err)
	}
	c := &outerCounter{}
	rep, err := m.Solve(context.Background(), qrc.WithRecorder(c))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("oracle %s; recorded every outer iteration: %v\n", c.oracle, c.outer["iqrc"] == rep.OuterIterations && c.outer["phase1"] == rep.Phase1Outer)
	// Output:
	// oracle smooth; recorded every outer iteration: true
}
