package main_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The two inputs that used to hang (docs/reliability.md): qrc eval of
// 100 000 indexed constraints (40 s to 5 min: one reverse pass over the
// whole program per constraint) and qrc plot of a 300 000-row trace (a
// minute of drawing). Each must finish within a minute of CPU time (3.9 s
// and about 1 s measured): CPU time, which other processes on a busy
// machine do not add to (a minute of wall time, which this was, failed
// there, issue 42 item 7); run1's hangWait bounds the wall time.
func TestFormerHangs(t *testing.T) {
	var tr strings.Builder
	tr.WriteString("method,series,cpu_seconds,wall_seconds,t,k,objective,infeasibility\n")
	for i := range 300000 {
		fmt.Fprintf(&tr, "iqrc,inner,%g,%g,1,%d,%g,%g\n", float64(i)*1e-3, float64(i)*1e-3, i, float64(i%1000)/1000, 1/float64(1+i%50))
	}
	dir := writeFiles(t, map[string]string{
		"many.qrc": "var x[10] in box(-1, 1)\nminimize sum(j in 1..10) x[j]\nsubject to\n    c[k in 1..100000]: x[1] + k * 1e-6 <= 1\n",
		"big.csv":  tr.String(),
	})
	r, cpu := runCPU(t, dir, "eval", "many.qrc")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "c[100000]  -0.9")
	assert.Less(t, cpu, time.Minute, "eval's CPU time")

	r, cpu = runCPU(t, dir, "plot", "big.csv", "-o", "big.png")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Less(t, cpu, time.Minute, "plot's CPU time")
	info, err := os.Stat(filepath.Join(dir, "big.png"))
	require.NoError(t, err)
	assert.Greater(t, info.Size(), int64(1000))
}

// runCPU runs the binary in dir as run1 does and also returns its CPU
// time (user and system).
func runCPU(t *testing.T, dir string, args ...string) (result, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, qrcBin, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "qrc %v did not finish", args)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{out.String(), errb.String(), code}, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}
