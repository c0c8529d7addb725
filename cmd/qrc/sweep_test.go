package main_test

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// qrc sweep over fairness.qrc's delta: one row per value, feasible, each
// parity gap within its delta (the two constraints' left-hand sides are
// rate(0) - rate(1) and its negative), the loss not lower for a smaller
// delta than the unconstrained run's, the table and figure written, and
// each result the one in the table.
func TestSweep(t *testing.T) {
	dir := t.TempDir()
	values := []string{"1", "0.1", "0.02"}
	r := qrc(t, "", "sweep", "examples/fairness.qrc", "--over", "delta=1,0.1,0.02", "--outer", "10", "--inner", "300", "--out", dir)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "delta  status")
	f, err := os.Open(filepath.Join(dir, "sweep.csv"))
	require.NoError(t, err)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 1+len(values))
	assert.Equal(t, []string{"delta", "status", "objective", "infeasibility", "parity_01", "parity_10", "seconds"}, recs[0])
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		require.NoError(t, err, s)
		return v
	}
	var objs []float64
	for i, rec := range recs[1:] {
		assert.Equal(t, values[i], rec[0])
		delta := num(rec[0])
		assert.LessOrEqual(t, num(rec[3]), 1e-3)
		gap01, gap10 := num(rec[4]), num(rec[5])
		assert.InDelta(t, -gap01, gap10, 1e-12)
		assert.LessOrEqual(t, gap10, delta+1e-3)
		assert.LessOrEqual(t, gap01, delta+1e-3)
		objs = append(objs, num(rec[2]))

		data, err := os.ReadFile(filepath.Join(dir, "delta="+values[i]+".json"))
		require.NoError(t, err)
		var res struct {
			Objective float64 `json:"objective"`
		}
		require.NoError(t, json.Unmarshal(data, &res))
		assert.Equal(t, num(rec[2]), res.Objective)
	}
	// the unconstrained gap (about 0.33) is above 0.1, so tightening delta
	// costs loss
	assert.Less(t, objs[0], objs[1])
	assert.Less(t, objs[1], objs[2])
	info, err := os.Stat(filepath.Join(dir, "sweep.png"))
	require.NoError(t, err)
	assert.Greater(t, info.Size(), int64(1000))

	r = qrc(t, "", "sweep", "examples/fairness.qrc", "--out", dir)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "want --over NAME=V1,V2,...")
}
