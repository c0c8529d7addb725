package main_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadLargeFiles loads CSV and LIBSVM files of several 4 MiB blocks
// (which the loaders parse straight into the matrix, block by block on
// every core) through the binary: the row count of a clean file, and an
// error in a late block at its line and column.
func TestLoadLargeFiles(t *testing.T) {
	const n, bad = 500_000, 420_000 // rows; the line of the bad value
	var csv, svm strings.Builder
	csv.WriteString("a,b,y\n")
	for i := range n {
		y := 1 - 2*(i%2)
		fmt.Fprintf(&csv, "%.3f,%.3f,%d\n", float64(i%97)/97, float64(i%89)/89-0.5, y)
		fmt.Fprintf(&svm, "%d 1:%.3f 2:%.3f\n", y, float64(i%97)/97, float64(i%89)/89)
	}
	model := func(loader, file string) string {
		return fmt.Sprintf("data d = %s(%q%s)\nvar x[d.d] in ball(1)\nminimize mean(i in d) logistic(-d.y[i] * dot(d.X[i], x))\n",
			loader, file, map[bool]string{true: `, label = "y"`}[loader == "csv"])
	}
	// line bad of each file, with one value spoilt (the CSV's header is line 1)
	spoil := func(text string, line int, from, to string) string {
		lines := strings.SplitAfter(text, "\n")
		require.True(t, strings.Contains(lines[line-1], from))
		lines[line-1] = strings.Replace(lines[line-1], from, to, 1)
		return strings.Join(lines, "")
	}
	csvRow := strings.SplitAfter(csv.String(), "\n")[bad-1]
	svmRow := strings.SplitAfter(svm.String(), "\n")[bad-1]
	csvCol := strings.Index(csvRow, ",") + 2  // the second cell
	svmCol := strings.Index(svmRow, "2:") + 3 // the second value
	badCSV := spoil(csv.String(), bad, ","+strings.Split(csvRow, ",")[1]+",", ",x1,")
	badSVM := spoil(svm.String(), bad, "2:"+strings.TrimSpace(strings.Split(svmRow, "2:")[1]), "2:0.5e")
	dir := writeFiles(t, map[string]string{
		"big.csv": csv.String(), "big.svm": svm.String(), "bad.csv": badCSV, "bad.svm": badSVM,
		"c.qrc": model("csv", "big.csv"), "s.qrc": model("libsvm", "big.svm"),
		"bc.qrc": model("csv", "bad.csv"), "bs.qrc": model("libsvm", "bad.svm"),
	})
	require.Greater(t, len(badCSV), 4<<20, "more than one block")
	for _, m := range []string{"c.qrc", "s.qrc"} {
		r := qrcIn(t, dir, nil, "check", m)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "500000 rows, 2 features, labels -1, 1", m)
	}
	r := qrcIn(t, dir, nil, "check", "bc.qrc")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, fmt.Sprintf(`bad.csv:%d:%d: non-numeric cell "x1" in column "b"`, bad, csvCol))
	r = qrcIn(t, dir, nil, "check", "bs.qrc")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, fmt.Sprintf(`bad.svm:%d:%d: invalid feature value "0.5e"`, bad, svmCol))
}
