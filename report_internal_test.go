package qrc

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/qrc-lang/qrc/check"
)

// A constraint violated by more than eps is VIOLATED; one violated by at
// most eps (allowed: results are feasible to eps) is marked too; a
// satisfied one is not.
func TestConstraintMarks(t *testing.T) {
	r := &Report{Status: "converged", Settings: ReportSettings{Eps: 1e-3}, Constraints: []ReportConstraint{
		{Name: "over", Value: 2e-3, Slack: -2e-3},
		{Name: "edge", Value: 1e-3, Slack: -1e-3},
		{Name: "inside", Value: 5e-4, Slack: -5e-4},
		{Name: "ok", Value: -0.1, Slack: 0.1},
		{Name: "zero", Value: 0, Slack: 0},
	}}
	var b strings.Builder
	r.text(&b, &check.Model{}, nil, false)
	line := func(name string) string {
		return regexp.MustCompile(`(?m)^` + name + ` .*$`).FindString(b.String())
	}
	assert.True(t, strings.HasSuffix(line("over"), "  VIOLATED"), line("over"))
	assert.True(t, strings.HasSuffix(line("edge"), "  violated within eps"), line("edge"))
	assert.True(t, strings.HasSuffix(line("inside"), "  violated within eps"), line("inside"))
	assert.NotContains(t, line("ok"), "violated")
	assert.NotContains(t, line("zero"), "violated")
}
