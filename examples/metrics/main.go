// Command metrics reports how a linear classifier found by qrc solve does
// on its data: accuracy, the false-positive and false-negative rates, and,
// for a group column, each group's rate of positive predictions and the gap
// between them (demographic parity, measured with the hard prediction
// rather than the model's sigmoid). docs/examples.md uses it.
//
//	go run ./examples/metrics -model examples/adult.qrc -result r.json -group male
//	go run ./examples/metrics -model examples/np.qrc -w w -b b -result r.json
//
// The model's first data set is the data (-data NAME=PATH replaces its file,
// as for qrc); the classifier predicts the sign of X[i]·w + b, with w the
// variable named by -w (default x) and b the scalar variable named by -b
// (none by default), read from the result file (qrc solve --out).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/modelfile"
	"github.com/qrc-lang/qrc/point"
)

// Metrics are the measures of one classifier on one data set.
type Metrics struct {
	Rows      int                `json:"rows"`
	Accuracy  float64            `json:"accuracy"`
	FPR       float64            `json:"false_positive_rate"` // of the rows labelled -1, the share predicted 1
	FNR       float64            `json:"false_negative_rate"` // of the rows labelled 1, the share predicted -1
	PosRate   map[string]float64 `json:"positive_rate,omitempty"`
	ParityGap float64            `json:"parity_gap,omitempty"` // |positive rate of group 1 - of group 0|
}

func main() {
	model := flag.String("model", "", "the model file")
	result := flag.String("result", "", "the result of qrc solve --out")
	dataFlag := flag.String("data", "", "NAME=PATH: read the model's data set NAME from PATH")
	wName := flag.String("w", "x", "the weight vector's variable")
	bName := flag.String("b", "", "the bias's variable, if any")
	group := flag.String("group", "", "a 0/1 column of the data that splits the rows into two groups")
	flag.Parse()
	m, err := run(*model, *result, *dataFlag, *wName, *bName, *group)
	if err != nil {
		fmt.Fprintln(os.Stderr, "metrics:", err)
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.Encode(m)
}

func run(model, result, dataFlag, wName, bName, group string) (*Metrics, error) {
	var opts check.Options
	if dataFlag != "" {
		name, path, ok := strings.Cut(dataFlag, "=")
		if !ok {
			return nil, fmt.Errorf("-data wants NAME=PATH, not %q", dataFlag)
		}
		opts.Data = []check.Assign{{Name: name, Value: path}}
	}
	mod, _, diags := modelfile.Load(model, opts)
	if diags.HasErrors() {
		return nil, diags.Err()
	}
	if len(mod.Data) == 0 {
		return nil, fmt.Errorf("%s has no data set", model)
	}
	x, err := point.Read(result, mod)
	if err != nil {
		return nil, err
	}
	var w []float64
	b := 0.0
	for _, v := range mod.Vars {
		switch v.Name {
		case wName:
			w = v.Of(x)
		case bName:
			b = v.Of(x)[0]
		}
	}
	set := mod.Data[0].Set
	if w == nil || len(w) != set.D() {
		return nil, fmt.Errorf("no variable %q with one weight per feature (%d)", wName, set.D())
	}
	var g []float64
	if group != "" {
		if g = set.Columns[group]; g == nil {
			return nil, fmt.Errorf("the data have no column %q", group)
		}
	}
	return measure(set.X.RawMatrix().Data, set.D(), set.Y, w, b, g), nil
}

// measure computes the metrics of the classifier sign(X[i]·w + b) (0
// counts as positive) on the rows of X (row-major, d columns) with labels
// y in {-1, 1}, and the positive rates of the groups g[i] = 0 and 1 when
// g is not nil.
func measure(X []float64, d int, y, w []float64, b float64, g []float64) *Metrics {
	n := len(y)
	var correct, neg, pos, fp, fn int
	var groupN, groupPos [2]int
	for i := range n {
		s := b
		for j, v := range X[i*d : (i+1)*d] {
			s += v * w[j]
		}
		predPos := s >= 0
		if predPos == (y[i] > 0) {
			correct++
		}
		if y[i] > 0 {
			pos++
			if !predPos {
				fn++
			}
		} else {
			neg++
			if predPos {
				fp++
			}
		}
		if g != nil && (g[i] == 0 || g[i] == 1) {
			k := int(g[i])
			groupN[k]++
			if predPos {
				groupPos[k]++
			}
		}
	}
	m := &Metrics{Rows: n, Accuracy: frac(correct, n), FPR: frac(fp, neg), FNR: frac(fn, pos)}
	if g != nil {
		r0, r1 := frac(groupPos[0], groupN[0]), frac(groupPos[1], groupN[1])
		m.PosRate = map[string]float64{"0": r0, "1": r1}
		m.ParityGap = r1 - r0
		if m.ParityGap < 0 {
			m.ParityGap = -m.ParityGap
		}
	}
	return m
}

func frac(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
