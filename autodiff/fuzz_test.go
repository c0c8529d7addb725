package autodiff_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/lang"
)

// gen builds a well-formed model from fuzz bytes: a few variables of random
// shapes, parameter vectors and matrices standing in for data, and an
// objective and constraints that are random expressions over the standard
// library (elementwise functions, reductions, dot products, comprehensions,
// powers, max/min), shape-correct by construction.
type gen struct {
	b    []byte
	i    int
	vars []genVar
	pars []genVar
}

type genVar struct {
	name string
	dims []int // nil: scalar; [n]: vector; [m, n]: matrix
}

// next returns the next fuzz byte (0 when they are used up).
func (g *gen) next() int {
	if g.i >= len(g.b) {
		return 0
	}
	g.i++
	return int(g.b[g.i-1])
}

func (g *gen) pick(n int) int { return g.next() % n }

func (g *gen) num() string {
	vals := []string{"0", "1", "2", "0.5", "-1", "3", "1e-3", "10", "0.25", "-2.5"}
	return vals[g.pick(len(vals))]
}

// withLen returns variables or parameters that are vectors of length n.
func withLen(vs []genVar, n int) []genVar {
	var out []genVar
	for _, v := range vs {
		if len(v.dims) == 1 && v.dims[0] == n {
			out = append(out, v)
		}
	}
	return out
}

// scalar returns a scalar expression; idx names a bound index in 1..n
// (or "" outside a comprehension).
func (g *gen) scalar(depth int, idx string, n int) string {
	if depth <= 0 {
		return g.scalarLeaf(idx, n)
	}
	d := depth - 1
	switch g.pick(16) {
	case 0, 1:
		return g.scalarLeaf(idx, n)
	case 13:
		cmp := []string{">", ">=", "<", "<=", "==", "!="}
		return fmt.Sprintf("(if %s %s %s then %s else %s)", g.scalar(d, idx, n), cmp[g.pick(len(cmp))], g.scalar(d, idx, n), g.scalar(d, idx, n), g.scalar(d, idx, n))
	case 14:
		return fmt.Sprintf("(if not %s > %s or %s < 0 then %s else %s)", g.scalar(d, idx, n), g.scalar(d, idx, n), g.scalarLeaf(idx, n), g.scalar(d, idx, n), g.scalar(d, idx, n))
	case 2:
		fns := []string{"abs", "pos", "exp", "log", "log1p", "sqrt", "square", "tanh", "sigmoid", "logistic", "hinge", "sin", "cos", "tan", "atan", "erf", "log10"}
		return fmt.Sprintf("%s(%s)", fns[g.pick(len(fns))], g.scalar(d, idx, n))
	case 3:
		ops := []string{"+", "-", "*", "/"}
		return fmt.Sprintf("(%s %s %s)", g.scalar(d, idx, n), ops[g.pick(len(ops))], g.scalar(d, idx, n))
	case 4:
		exps := []string{"2", "3", "0.5", "-1", "1.5"}
		return fmt.Sprintf("(%s)^%s", g.scalar(d, idx, n), exps[g.pick(len(exps))])
	case 5:
		m := 1 + g.pick(4)
		fns := []string{"sum", "mean", "norm1", "norm2", "norminf", "max", "min"}
		return fmt.Sprintf("%s(%s)", fns[g.pick(len(fns))], g.vector(d, m))
	case 6:
		m := 1 + g.pick(4)
		return fmt.Sprintf("dot(%s, %s)", g.vector(d, m), g.vector(d, m))
	case 7:
		m := 1 + g.pick(4)
		ops := []string{"sum", "mean", "max", "min"}
		where := ""
		if g.pick(3) == 0 {
			where = fmt.Sprintf(" where j != %d", 1+g.pick(m))
			if m == 1 {
				where = ""
			}
		}
		return fmt.Sprintf("%s(j in 1..%d%s) (%s)", ops[g.pick(len(ops))], m, where, g.scalarIn(d, "j", m))
	case 8:
		return fmt.Sprintf("max(%s, %s)", g.scalar(d, idx, n), g.scalar(d, idx, n))
	case 9:
		return fmt.Sprintf("min(%s, %s, %s)", g.scalar(d, idx, n), g.scalar(d, idx, n), g.num())
	case 10:
		return fmt.Sprintf("huber(%s, %s)", g.scalar(d, idx, n), []string{"0.5", "1", "2"}[g.pick(3)])
	case 11:
		return fmt.Sprintf("mcp(%s, 1, 2)", g.scalar(d, idx, n))
	case 12:
		return fmt.Sprintf("scad(%s, 0.5, 3.7)", g.scalar(d, idx, n))
	default:
		return fmt.Sprintf("-(%s)", g.scalar(d, idx, n))
	}
}

// scalarIn is a scalar expression inside a comprehension over idx in 1..n:
// it may index vectors of length n with idx.
func (g *gen) scalarIn(depth int, idx string, n int) string {
	if vs := append(withLen(g.vars, n), withLen(g.pars, n)...); len(vs) > 0 && g.pick(2) == 0 {
		v := vs[g.pick(len(vs))]
		return fmt.Sprintf("%s[%s] * %s", v.name, idx, g.scalar(depth, idx, n))
	}
	return g.scalar(depth, idx, n)
}

func (g *gen) scalarLeaf(idx string, n int) string {
	switch g.pick(5) {
	case 0:
		return g.num()
	case 1:
		if idx != "" {
			return idx
		}
		return g.num()
	}
	v := g.vars[g.pick(len(g.vars))]
	switch len(v.dims) {
	case 0:
		return v.name
	case 1:
		if idx != "" && v.dims[0] == n {
			return fmt.Sprintf("%s[%s]", v.name, idx)
		}
		return fmt.Sprintf("%s[%d]", v.name, 1+g.pick(v.dims[0]))
	default:
		return fmt.Sprintf("%s[%d, %d]", v.name, 1+g.pick(v.dims[0]), 1+g.pick(v.dims[1]))
	}
}

// vector returns an expression that is a vector of length n.
func (g *gen) vector(depth int, n int) string {
	var leaves []string
	for _, v := range append(withLen(g.vars, n), withLen(g.pars, n)...) {
		leaves = append(leaves, v.name)
	}
	for _, v := range g.vars {
		if len(v.dims) == 2 && v.dims[1] == n {
			leaves = append(leaves, fmt.Sprintf("%s[%d]", v.name, 1+g.pick(v.dims[0])))
		}
	}
	if depth <= 0 || g.pick(3) == 0 {
		if len(leaves) > 0 && g.pick(4) != 0 {
			return leaves[g.pick(len(leaves))]
		}
		elems := make([]string, n)
		for i := range elems {
			elems[i] = g.num()
			if g.pick(3) == 0 { // a list of expressions
				elems[i] = g.scalar(depth-1, "", 0)
			}
		}
		return "[" + strings.Join(elems, ", ") + "]"
	}
	d := depth - 1
	switch g.pick(6) {
	case 0:
		fns := []string{"abs", "pos", "exp", "square", "tanh", "sigmoid", "logistic"}
		return fmt.Sprintf("%s(%s)", fns[g.pick(len(fns))], g.vector(d, n))
	case 1:
		ops := []string{"+", "-", "*"}
		return fmt.Sprintf("(%s %s %s)", g.vector(d, n), ops[g.pick(len(ops))], g.vector(d, n))
	case 2:
		return fmt.Sprintf("%s * %s", g.scalar(d, "", 0), g.vector(d, n))
	case 3:
		for _, v := range g.vars {
			if len(v.dims) == 2 && v.dims[0] == n {
				return fmt.Sprintf("dot(%s, %s)", v.name, g.vector(d, v.dims[1]))
			}
		}
		return g.vector(d, n)
	case 4:
		return fmt.Sprintf("max(%s, %s)", g.vector(d, n), g.scalar(d, "", 0))
	default:
		return fmt.Sprintf("sum(k in 1..%d) %s", 1+g.pick(3), g.vector(d, n))
	}
}

// model returns the model text and the declarations of its variables.
func (g *gen) model() string {
	var b strings.Builder
	nv := 1 + g.pick(3)
	for i := range nv {
		v := genVar{name: fmt.Sprintf("x%d", i+1)}
		switch g.pick(3) {
		case 1:
			v.dims = []int{1 + g.pick(4)}
		case 2:
			v.dims = []int{1 + g.pick(3), 1 + g.pick(4)}
		}
		g.vars = append(g.vars, v)
	}
	np := g.pick(3)
	for i := range np {
		p := genVar{name: fmt.Sprintf("p%d", i+1), dims: []int{1 + g.pick(4)}}
		elems := make([]string, p.dims[0])
		for k := range elems {
			elems[k] = g.num()
		}
		fmt.Fprintf(&b, "param %s = [%s]\n", p.name, strings.Join(elems, ", "))
		g.pars = append(g.pars, p)
	}
	for _, v := range g.vars {
		dims := ""
		if len(v.dims) > 0 {
			s := make([]string, len(v.dims))
			for k, d := range v.dims {
				s[k] = fmt.Sprint(d)
			}
			dims = "[" + strings.Join(s, ", ") + "]"
		}
		doms := []string{"box(-2, 2)", "ball(3)", "box(-1, 1)"}
		fmt.Fprintf(&b, "var %s%s in %s = %s\n", v.name, dims, doms[g.pick(len(doms))], []string{"0.5", "1", "-0.25", "0"}[g.pick(4)])
	}
	depth := 1 + g.pick(4)
	fmt.Fprintf(&b, "minimize %s\n", g.scalar(depth, "", 0))
	nc := g.pick(3)
	if nc > 0 {
		b.WriteString("subject to\n")
	}
	for i := range nc {
		fmt.Fprintf(&b, "    c%d: %s <= %s\n", i+1, g.scalar(1+g.pick(3), "", 0), g.num())
	}
	return b.String()
}

// constModel is the model with every variable replaced by a parameter
// holding its value in x and each function by a parameter: the checker's
// own tree-walking evaluator then computes the values the compiled program
// must reproduce.
func constModel(m *check.Model, src string, x []float64) string {
	var b strings.Builder
	for _, line := range strings.Split(src, "\n") {
		if strings.HasPrefix(line, "var ") || strings.HasPrefix(line, "minimize ") || strings.HasPrefix(line, "subject to") || strings.HasPrefix(line, "    c") {
			continue
		}
		b.WriteString(line + "\n")
	}
	for _, v := range m.Vars {
		vals := v.Of(x)
		num := func(e float64) string { return fmt.Sprintf("%.17g", e) }
		switch len(v.Shape) {
		case 0:
			fmt.Fprintf(&b, "param %s = %s\n", v.Name, num(vals[0]))
		case 1:
			s := make([]string, len(vals))
			for i, e := range vals {
				s[i] = num(e)
			}
			fmt.Fprintf(&b, "param %s = [%s]\n", v.Name, strings.Join(s, ", "))
		default:
			rows := make([]string, v.Shape[0])
			for r := range rows {
				s := make([]string, v.Shape[1])
				for c := range s {
					s[c] = num(vals[r*v.Shape[1]+c])
				}
				rows[r] = "[" + strings.Join(s, ", ") + "]"
			}
			fmt.Fprintf(&b, "param %s = [%s]\n", v.Name, strings.Join(rows, ", "))
		}
	}
	for _, line := range strings.Split(src, "\n") {
		if e, ok := strings.CutPrefix(line, "minimize "); ok {
			fmt.Fprintf(&b, "param f0 = %s\n", e)
		}
		if rest, ok := strings.CutPrefix(line, "    c"); ok {
			name, cons, _ := strings.Cut(rest, ": ")
			lhs, rhs, _ := strings.Cut(cons, " <= ")
			fmt.Fprintf(&b, "param f%s = (%s) - (%s)\n", name, lhs, rhs)
		}
	}
	b.WriteString("var unused in box(0, 1)\n")
	return b.String()
}

// FuzzCompileEval generates a well-formed model from the fuzz input and runs
// it through check, compile, evaluation and the gradient, at the start and
// at points derived from the input. Nothing may panic; the model must check
// (the generator is shape-correct); an evaluation either succeeds with
// finite values, equal to those of the checker's independent evaluator, and
// a finite gradient of the right length, or fails with an *EvalError at a
// position in the model.
func FuzzCompileEval(f *testing.F) {
	for _, s := range []string{"", "\x01\x02\x03", "seed-a", "\xff\x10\x07\x42\x99\x00\x31", "qrc fuzz corpus: shapes and sums", "\x05\x05\x05\x05\x05\x05\x05\x05\x07\x07\x07"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		g := &gen{b: b}
		src := g.model()
		file, errs := lang.Parse("gen.qrc", []byte(src))
		if errs != nil {
			t.Fatalf("generated model does not parse: %v\n%s", errs, src)
		}
		m, diags := check.Check(file, check.Options{Dir: "."})
		if m == nil {
			for _, d := range diags.Errors() {
				// a constant part the checker folds may fail to
				// evaluate (log of a negative constant): a proper
				// diagnostic, not a generator bug
				if strings.Contains(d.Msg, "internal error") {
					t.Fatalf("checker crashed: %v\n%s", d, src)
				}
			}
			return
		}
		prog, err := autodiff.Compile(m)
		if err != nil {
			if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("compiler crashed: %v\n%s", err, src)
			}
			return
		}
		nf := len(prog.Functions())
		x := make([]float64, m.NumScalars)
		for _, v := range m.Vars {
			copy(x[v.Offset:], v.Start)
		}
		for p := 0; p < 3; p++ {
			if p > 0 {
				for i := range x {
					x[i] = float64(g.next()%41-20) / 10
				}
			}
			vals := make([]float64, nf)
			err := prog.Eval(x, vals)
			if err != nil {
				var ee *autodiff.EvalError
				if !errors.As(err, &ee) || ee.Pos.Line < 1 {
					t.Fatalf("evaluation failed without a position: %v\n%s", err, src)
				}
				continue
			}
			for i, v := range vals {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("f%d = %v without an error\n%s", i, v, src)
				}
			}
			ref, rdiags := check.Check(mustParse(t, constModel(m, src, x)), check.Options{Dir: "."})
			if ref != nil {
				refVals := map[string]float64{}
				for _, p := range ref.Params {
					refVals[p.Name] = p.Value.Data[0]
				}
				for i := range nf {
					name := "f0"
					if i > 0 {
						name = "f" + strings.TrimPrefix(prog.Functions()[i].Name, "c")
					}
					want, ok := refVals[name]
					if ok && math.Abs(vals[i]-want) > 1e-9*(1+math.Abs(want)) {
						t.Fatalf("%s: compiled %v, checker %v at x = %v\n%s", prog.Functions()[i].Name, vals[i], want, x, src)
					}
				}
			} else {
				_ = rdiags // the checker refuses a value it cannot compute (NaN along the way): nothing to compare
			}
			w := make([]float64, nf)
			for i := range w {
				w[i] = 1
			}
			grad := make([]float64, m.NumScalars)
			if err := prog.Gradient(w, grad); err != nil {
				var ee *autodiff.EvalError
				if !errors.As(err, &ee) {
					t.Fatalf("gradient failed without a position: %v\n%s", err, src)
				}
			}
		}
	})
}

func mustParse(t *testing.T, src string) *ast.File {
	t.Helper()
	f, errs := lang.Parse("const.qrc", []byte(src))
	if errs != nil {
		t.Fatalf("the constant model does not parse: %v\n%s", errs, src)
	}
	return f
}
