package main_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/qrc-lang/qrc/solve"
	"github.com/qrc-lang/qrc/solvecmd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exitParagraph returns the paragraph of text that starts at marker, cut
// into its "CODE meaning" parts (separated by semicolons), by code.
func exitParagraph(t *testing.T, text, marker string) map[int]string {
	t.Helper()
	i := strings.Index(text, marker)
	require.GreaterOrEqual(t, i, 0, "no %q in the text", marker)
	para := text[i+len(marker):]
	if j := strings.Index(para, "\n\n"); j >= 0 {
		para = para[:j]
	}
	para = strings.Join(strings.Fields(para), " ")
	lead := regexp.MustCompile(`^(\d+) `)
	out := map[int]string{}
	for _, part := range strings.Split(para, ";") {
		part = strings.TrimSpace(part)
		m := lead.FindStringSubmatch(part)
		require.NotNil(t, m, "a part of the exit status paragraph without a code: %q", part)
		code, _ := strconv.Atoi(m[1])
		out[code] = part
	}
	return out
}

// Every status a solve can end with, feasible or not, has its exit code
// (solvecmd.StatusExit) listed with the status's name in qrc solve's
// --help and in docs/cli.md, and both list the codes 1 (model errors) and
// 2 (command line): the text cannot drift from the code.
func TestExitCodesDocumented(t *testing.T) {
	help := qrc(t, "", "help", "solve")
	require.Equal(t, 0, help.code, help.stderr)
	doc, err := os.ReadFile("../../docs/cli.md")
	require.NoError(t, err)
	i := strings.Index(string(doc), "\n## qrc solve")
	require.GreaterOrEqual(t, i, 0)
	texts := map[string]map[int]string{
		"qrc help solve": exitParagraph(t, help.stdout, "Exit status:"),
		"docs/cli.md":    exitParagraph(t, string(doc)[i:], "**Exit status**:"),
	}
	for where, parts := range texts {
		for _, code := range []int{solvecmd.ExitInvalid, solvecmd.ExitUsage} {
			assert.Contains(t, parts, code, "%s does not list exit code %d", where, code)
		}
		for s := solve.Converged; s <= solve.Unbounded; s++ {
			feasible := []bool{s.Success()}
			if s == solve.TimeLimit || s == solve.Interrupted {
				feasible = []bool{true, false}
			}
			for _, f := range feasible {
				code := solvecmd.StatusExit(s, f)
				part, ok := parts[code]
				if assert.True(t, ok, "%s does not list exit code %d (status %s, feasible %v)", where, code, s, f) {
					assert.Contains(t, part, s.String(), "%s: exit code %d is status %s (feasible %v)", where, code, s, f)
				}
			}
		}
	}
	// the overview of every command's codes names solve's too
	all := strings.Join(strings.Fields(string(doc)), " ")
	for _, code := range []int{solvecmd.ExitInfeasible, solvecmd.ExitNumerical, solvecmd.ExitUnbounded, solvecmd.ExitInterrupted} {
		assert.Contains(t, all, "`solve` also uses", "docs/cli.md's overview")
		j := strings.Index(all, "`solve` also uses")
		assert.Contains(t, all[j:j+120], strconv.Itoa(code), "docs/cli.md's overview of exit codes lacks %d", code)
	}
}
