package qrc

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/solve"
)

// A constraint violated by more than eps is VIOLATED; one violated by at
// most eps (allowed: results are feasible to eps) is marked too; a
// satisfied one is not.
func TestConstraintMarks(t *testing.T) {
	r := &Report{Status: "converged", Settings: ReportSettings{Eps: 1e-3}, Constraints: []ReportConstraint{
		{Name: "over", Op: "<=", Value: 2e-3, Slack: -2e-3, Violation: 2e-3},
		{Name: "edge", Op: "<=", Value: 1e-3, Slack: -1e-3, Violation: 1e-3},
		{Name: "inside", Op: ">=", Value: 5e-4, Slack: -5e-4, Violation: 5e-4},
		{Name: "ok", Op: "<=", Value: -0.1, Slack: 0.1},
		{Name: "zero", Op: "<=", Value: 0, Slack: 0},
		{Name: "eqover", Op: "==", Value: -2e-3, Slack: -2e-3, Violation: 2e-3},
		{Name: "eqin", Op: "==", Value: -5e-4, Slack: -5e-4, Violation: 5e-4},
	}}
	var b strings.Builder
	r.text(&b, &check.Model{}, nil, TextOptions{})
	line := func(name string) string {
		return regexp.MustCompile(`(?m)^` + name + ` .*$`).FindString(b.String())
	}
	assert.True(t, strings.HasSuffix(line("over"), "  VIOLATED"), line("over"))
	assert.True(t, strings.HasSuffix(line("edge"), "  violated within eps"), line("edge"))
	assert.True(t, strings.HasSuffix(line("inside"), "  violated within eps"), line("inside"))
	assert.NotContains(t, line("ok"), "violated")
	assert.NotContains(t, line("zero"), "violated")
	assert.True(t, strings.HasSuffix(line("eqover"), "  VIOLATED"), line("eqover"))
	assert.NotContains(t, line("eqin"), "violated", "an equality within eps is met to its band: no mark")
}

// A Stalled solve gets a verdict that names the oracle and what to try.
func TestStalledVerdict(t *testing.T) {
	r := &Report{Status: "stalled"}
	r.diagnose(&solve.Diagnosis{}, &solve.Result{Status: solve.Stalled}, solve.Settings{Oracle: solve.Bundle}, 0)
	assert.Contains(t, r.Verdict, "stalled: the bundle oracle could neither move this point nor certify it")
	assert.Contains(t, r.Verdict, "Options.Eps")
	r = &Report{Status: "stalled"}
	r.diagnose(&solve.Diagnosis{}, &solve.Result{Status: solve.Stalled}, solve.Settings{}, 0)
	assert.Contains(t, r.Verdict, "the accurate oracle")
}

// The progress table shows the certificate's heartbeats after the last
// outer row (also when that row was held back), and nothing for a
// heartbeat before any row.
func TestProgressShowsTheCertificate(t *testing.T) {
	var b strings.Builder
	p := &Printer{w: &b}
	beat := Iteration{Iteration: solve.Iteration{Stage: "certificate", T: 3, K: 120, Objective: 1.5, Elapsed: 2 * time.Second}}
	require.NoError(t, p.Record(beat))
	assert.Empty(t, b.String())
	require.NoError(t, p.Record(Iteration{Iteration: solve.Iteration{T: 3, Objective: 1.5, Elapsed: time.Second}, Phase: "iqrc"}))
	require.NoError(t, p.Record(beat))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 3, b.String())
	assert.True(t, strings.HasPrefix(lines[1], "iqrc "), lines[1])
	assert.True(t, strings.HasPrefix(lines[2], "certifi"), lines[2])
	assert.Contains(t, lines[2], "(certificate of x_3: 120 inner iterations so far)")
}

// A point certified by the KKT residual at x alone (the oracle found no
// bound at x_hat) says so, and does not read as "not certified".
func TestKKTOnlyCertificateText(t *testing.T) {
	res, comp, tol := 2.5, 0.004, 42.0
	r := &Report{Status: "converged", Stationary: true, KKTResidual: &res, KKTComplementarity: &comp, KKTTolerance: &tol, OutsideTheory: `the equality constraint "h1" is not affine`}
	var b strings.Builder
	r.text(&b, &check.Model{}, nil, TextOptions{})
	line := regexp.MustCompile(`(?m)^stationarity .*$`).FindString(b.String())
	assert.Contains(t, line, "nearly stationary: KKT residual 2.5 at x")
	assert.Contains(t, line, "tolerance 42")
	assert.Contains(t, line, "no bound at x_hat")
	assert.Contains(t, line, "a local solution at best")
	assert.NotContains(t, b.String(), "not certified")
}
