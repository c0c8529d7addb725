package main_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSolveSparseLogistic solves an l2-regularised logistic regression on
// a LIBSVM file of 4000 features, each row with one nonzero in a column of
// its own, through the binary, with a data memory limit that the CSR
// arrays fit and the dense matrix (32 MB) does not: the set is evaluated
// sparse. The model separates by column, so the answer is known by hand:
// with lambda = 1/n, the weight of row i's column solves
// w = y v sigmoid(-y v w) (v its value, y its label), and a column no row
// uses has weight 0.
func TestSolveSparseLogistic(t *testing.T) {
	const n, d = 1000, 4000
	var b strings.Builder
	want := make([]float64, d)
	for i := range n {
		y := float64(1 - 2*(i%2))
		v := []float64{0.5, 1, 2}[i%3]
		col := 4*i + 4 // 1-based; the last row names column d
		fmt.Fprintf(&b, "%g %d:%g\n", y, col, v)
		// bisection on h(w) = w - y v sigmoid(-y v w), increasing in w
		lo, hi := -5.0, 5.0
		for range 200 {
			mid := (lo + hi) / 2
			if mid-y*v/(1+math.Exp(y*v*mid)) > 0 {
				hi = mid
			} else {
				lo = mid
			}
		}
		want[col-1] = (lo + hi) / 2
	}
	dir := writeFiles(t, map[string]string{
		"wide.svm": b.String(),
		"wide.qrc": `data D = libsvm("wide.svm")
var w[D.d] in box(-5, 5)
minimize mean(i in D) log(1 + exp(-D.y[i] * dot(w, D.X[i]))) + 0.0005 * sum(j in 1..D.d) w[j]^2
`,
	})
	env := []string{"QRC_DATA_MEMORY=20MB"}
	r := qrcIn(t, dir, env, "solve", "--json", "wide.qrc")
	require.Equal(t, 0, r.code, r.stderr)
	var out solveJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out), r.stdout)
	var w []float64
	require.NoError(t, json.Unmarshal(out.Variables["w"], &w))
	require.Len(t, w, d)
	worst := 0.0
	for j := range w {
		worst = math.Max(worst, math.Abs(w[j]-want[j]))
	}
	assert.Less(t, worst, 1e-3, "largest error in w")

	// The objective at the hand-solved point.
	f := 0.0
	for i := range n {
		y := float64(1 - 2*(i%2))
		v := []float64{0.5, 1, 2}[i%3]
		f += math.Log1p(math.Exp(-y*v*want[4*i+3])) / n
	}
	for _, x := range want {
		f += 0.0005 * x * x
	}
	assert.InDelta(t, f, out.Objective, 1e-6)

	// The same model with an elementwise use of X needs the dense matrix,
	// which does not fit: refused at check time with the size.
	dir2 := writeFiles(t, map[string]string{
		"wide.svm": b.String(),
		"wide.qrc": "data D = libsvm(\"wide.svm\")\nvar w[D.d]\nminimize mean(i in D) abs(D.X[i, 4] * w[4]) + mean(i in D) dot(w, D.X[i])\n",
	})
	r = qrcIn(t, dir2, env, "check", "wide.qrc")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "wide.qrc:3:27: cannot use D.X: wide.svm:1000:")
	assert.Contains(t, r.stderr, "a dense 1000 × 4000 matrix of this sparse set (1000 nonzeros, density 0.00025) needs about 30.5 MiB")
}

// TestCheckSaysStorage checks that `qrc check` says whether a sparse file
// is read over its nonzeros or made dense, and where the model needs the
// dense matrix, in the text and in --json.
func TestCheckSaysStorage(t *testing.T) {
	// 200 rows of 100 features, one nonzero each: 1% dense, stored sparse
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "%d %d:1.5\n", 1-2*(i%2), i%100+1)
	}
	dir := writeFiles(t, map[string]string{
		"s.svm":     b.String(),
		"dot.qrc":   "data D = libsvm(\"s.svm\")\nvar w[D.d] in box(-1, 1)\nminimize mean(i in D) log(1 + exp(-D.y[i] * dot(w, D.X[i])))\n",
		"elem.qrc":  "data D = libsvm(\"s.svm\")\nvar w[D.d] in box(-1, 1)\nminimize mean(i in D) abs(D.X[i, 4] * w[4])\n",
		"dense.csv": "y,a,b\n1,0.5,2\n-1,1,3\n",
		"csv.qrc":   "data D = csv(\"dense.csv\", label = \"y\")\nvar w[D.d] in box(-1, 1)\nminimize mean(i in D) log(1 + exp(-D.y[i] * dot(w, D.X[i])))\n",
	})
	r := qrcIn(t, dir, nil, "check", "dot.qrc")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "200 rows, 100 features, labels -1, 1; sparse, 200 nonzeros (1%), read over the nonzeros")
	r = qrcIn(t, dir, nil, "check", "elem.qrc")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "sparse, 200 nonzeros (1%), made dense for the use of X at elem.qrc:3:27")

	type dataJSON struct {
		Storage  string `json:"storage"`
		Nonzeros int    `json:"nonzeros"`
		DenseAt  string `json:"dense_at"`
	}
	for _, c := range []struct {
		file string
		want dataJSON
	}{
		{"dot.qrc", dataJSON{"sparse", 200, ""}},
		{"elem.qrc", dataJSON{"made dense", 200, "elem.qrc:3:27"}},
		{"csv.qrc", dataJSON{"dense", 0, ""}},
	} {
		r = qrcIn(t, dir, nil, "check", "--json", c.file)
		require.Equal(t, 0, r.code, r.stderr)
		var out struct{ Data []dataJSON }
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &out), r.stdout)
		require.Len(t, out.Data, 1)
		assert.Equal(t, c.want, out.Data[0], c.file)
	}
	r = qrcIn(t, dir, nil, "check", "csv.qrc")
	assert.NotContains(t, r.stdout, "sparse")
}
