package main

import (
	"fmt"
	"io"
	"time"

	"github.com/qrc-lang/qrc/solve"
)

// clock measures one piece of a command's work in wall and CPU seconds,
// for the notes that say where the time goes.
type clock struct {
	wall time.Time
	cpu  float64
}

func startClock() clock { return clock{wall: time.Now(), cpu: cpuSeconds()} }

// note is "what: 6.1 s (CPU 7.9 s)" since the clock started.
func (c clock) note(what string) string {
	return fmt.Sprintf("%s: %.2f s (CPU %.2f s)", what, time.Since(c.wall).Seconds(), cpuSeconds()-c.cpu)
}

// solveStage is one stage of the dynamic oracle in the JSON result.
type solveStage struct {
	Rows          int     `json:"rows"`
	Fraction      float64 `json:"fraction"`
	Eps           float64 `json:"eps"`
	Status        string  `json:"status"`
	Outer         int     `json:"outer_iterations"`
	Evals         int     `json:"evaluations"`
	Passes        float64 `json:"data_passes"`
	RestoreEvals  int     `json:"restore_evaluations"`
	Objective     float64 `json:"objective"`
	Infeasibility float64 `json:"infeasibility"`
	Seconds       float64 `json:"seconds"`
}

// stagesOf converts the dynamic oracle's stages for the JSON result.
func stagesOf(stages []solve.Stage) []solveStage {
	var out []solveStage
	for _, s := range stages {
		out = append(out, solveStage{Rows: s.Rows, Fraction: s.Fraction, Eps: s.Eps, Status: s.Status.String(),
			Outer: s.Outer, Evals: s.Evals, Passes: s.Passes, RestoreEvals: s.RestoreEvals, Objective: s.Objective, Infeasibility: s.Infeasibility, Seconds: s.Time.Seconds()})
	}
	return out
}

// printStages says where a dynamic solve's time went: one line per stage
// (its rows, tolerance, outer steps, evaluations and data passes, wall
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
		fmt.Fprintf(w, "qrc solve: stage %d, %s, eps %.3g: %s after %d outer steps, %d evaluations%s, %.3g data passes, %.2f s; objective %.6g, infeasibility %.3g on these rows\n",
			i+1, what, s.Eps, s.Status, s.Outer, s.Evals, restore, s.Passes, s.Time.Seconds(), s.Objective, s.Infeasibility)
	}
	fmt.Fprintf(w, "qrc solve: %.3g data passes in all\n", solve.Passes(stages))
}
