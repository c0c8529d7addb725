package solvecmd

import (
	"fmt"
	"io"

	"github.com/qrc-lang/qrc/solve"
)

// printStages says where a dynamic solve's time went: one line per stage
// (its rows, tolerance, oracle, outer steps, evaluations and data passes, wall
// time), the last one on every row, its certificate included.
func printStages(w io.Writer, stages []solve.Stage) {
	if len(stages) < 2 {
		return
	}
	for i, s := range stages {
		what := fmt.Sprintf("sample of %d rows (%.3g%%)", s.Rows, 100*s.Fraction)
		if s.Fraction == 1 {
			what = fmt.Sprintf("all %d rows", s.Rows)
		}
		restore := ""
		if s.RestoreEvals > 0 {
			restore = fmt.Sprintf(" (%d in the restoration of feasibility)", s.RestoreEvals)
		}
		oracle := ""
		if s.Oracle != nil {
			oracle = ", " + s.Oracle.String() + " oracle"
		}
		fmt.Fprintf(w, "qrc solve: stage %d, %s, eps %.3g%s: %s after %d outer steps, %d evaluations%s, %.3g data passes, %.2f s; objective %.6g, infeasibility %.3g on these rows\n",
			i+1, what, s.Eps, oracle, s.Status, s.Outer, s.Evals, restore, s.Passes, s.Time.Seconds(), s.Objective, s.Infeasibility)
	}
	fmt.Fprintf(w, "qrc solve: %.3g data passes in all\n", solve.Passes(stages))
}
