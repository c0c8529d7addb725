package check

import (
	"fmt"
	"github.com/qrc-lang/qrc/stdlib"
	"math"
	"strconv"
)

// env binds indices to values during static evaluation.
type env map[*Binder]int

// Eval computes the value of an expression that does not depend on
// decision variables (a parameter, an index, a where filter), with the
// indices bound in ix. It is used at check time only; the solver evaluates
// compiled programs.
func Eval(e Expr, ix map[*Binder]int) (Tensor, error) {
	if e.Deps()&DepVar != 0 {
		return Tensor{}, fmt.Errorf("expression depends on a decision variable")
	}
	return eval(e, env(ix))
}

func eval(e Expr, ix env) (Tensor, error) {
	switch e := e.(type) {
	case *Const:
		return e.Value, nil
	case *DataField:
		return dataTensor(e)
	case *IndexVal:
		v, ok := ix[e.Binder]
		if !ok {
			return Tensor{}, fmt.Errorf("index %s has no value here", e.Binder.Name)
		}
		return Scalar(float64(v)), nil
	case *Index:
		var x Tensor
		f, sparse := isSparseX(e.X)
		if sparse && len(e.Idx) <= 2 { // a row or an element, read from the CSR arrays
			x.Shape = Shape{f.Set.Set.N(), f.Set.Set.D()}
		} else {
			var err error
			if x, err = eval(e.X, ix); err != nil {
				return Tensor{}, err
			}
			sparse = false
		}
		var err error
		idx := make([]int, len(e.Idx))
		for k, ie := range e.Idx {
			if idx[k], err = evalInt(ie, ix); err != nil {
				return Tensor{}, err
			}
			if idx[k] < 1 || idx[k] > x.Shape[k] {
				return Tensor{}, fmt.Errorf("index %d is out of range 1..%d", idx[k], x.Shape[k])
			}
		}
		if sparse {
			return sparseIndex(f.Set.Set.Sparse, idx), nil
		}
		return selectIndex(x, idx), nil
	case *Neg:
		x, err := eval(e.X, ix)
		if err != nil {
			return Tensor{}, err
		}
		return mapTensor(x, func(v float64) float64 { return -v }), nil
	case *Arith:
		x, y, err := evalPair(e.X, e.Y, ix)
		if err != nil {
			return Tensor{}, err
		}
		return broadcast(e.shape, []Tensor{x, y}, func(v []float64) float64 { return arith(e.Op, v[0], v[1]) }), nil
	case *Call:
		return evalCall(e, ix)
	case *Compr:
		return evalCompr(e, ix)
	case *Compare:
		x, y, err := evalPair(e.X, e.Y, ix)
		if err != nil {
			return Tensor{}, err
		}
		return boolTensor(Holds(e.Op, x.Data[0], y.Data[0])), nil
	case *Stack:
		out := Tensor{Shape: e.shape, Data: make([]float64, len(e.Elems))}
		for k, x := range e.Elems {
			t, err := eval(x, ix)
			if err != nil {
				return Tensor{}, err
			}
			out.Data[k] = t.Data[0]
		}
		return out, nil
	case *If:
		c, err := eval(e.Cond, ix)
		if err != nil {
			return Tensor{}, err
		}
		b := e.Else
		if c.Data[0] != 0 {
			b = e.Then
		}
		v, err := eval(b, ix)
		if err != nil {
			return Tensor{}, err
		}
		return broadcast(e.shape, []Tensor{v}, func(v []float64) float64 { return v[0] }), nil
	case *Logic:
		x, err := eval(e.X, ix)
		if err != nil {
			return Tensor{}, err
		}
		a := x.Data[0] != 0
		switch e.Op {
		case "not":
			return boolTensor(!a), nil
		case "and":
			if !a {
				return boolTensor(false), nil
			}
		case "or":
			if a {
				return boolTensor(true), nil
			}
		}
		y, err := eval(e.Y, ix)
		if err != nil {
			return Tensor{}, err
		}
		return boolTensor(y.Data[0] != 0), nil
	}
	return Tensor{}, fmt.Errorf("cannot evaluate %T at check time", e)
}

// evalPair evaluates the two operands of a binary node.
func evalPair(a, b Expr, ix env) (Tensor, Tensor, error) {
	x, err := eval(a, ix)
	if err != nil {
		return Tensor{}, Tensor{}, err
	}
	y, err := eval(b, ix)
	return x, y, err
}

func dataTensor(e *DataField) (Tensor, error) {
	s := e.Set.Set
	if e.Field == "X" {
		x, err := s.Dense() // converts a sparse set (checked to fit)
		if err != nil {
			return Tensor{}, err
		}
		raw := x.RawMatrix()
		if raw.Stride == raw.Cols {
			return Tensor{Shape: Shape{raw.Rows, raw.Cols}, Data: raw.Data[:raw.Rows*raw.Cols]}, nil
		}
		out := make([]float64, 0, raw.Rows*raw.Cols)
		for r := 0; r < raw.Rows; r++ {
			out = append(out, raw.Data[r*raw.Stride:r*raw.Stride+raw.Cols]...)
		}
		return Tensor{Shape: Shape{raw.Rows, raw.Cols}, Data: out}, nil
	}
	col := s.Y
	if e.Field != "y" {
		col = s.Columns[e.Field]
	}
	return Tensor{Shape: Shape{len(col)}, Data: col}, nil
}

// evalInt evaluates a scalar integer expression.
func evalInt(e Expr, ix env) (int, error) {
	t, err := eval(e, ix)
	if err != nil {
		return 0, err
	}
	return toInt(t.Data[0])
}

// toInt returns v as an int, or an *intError when it is not an integer or
// beyond 2^40 (2^53 is an integer, only too large).
func toInt(v float64) (int, error) {
	r := math.Round(v)
	if math.Abs(v-r) > 1e-9 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, &intError{v: v}
	}
	if math.Abs(r) > 1<<40 {
		return 0, &intError{v: r, large: true}
	}
	return int(r), nil
}

// intError is a value that cannot serve as a dimension, an index or a
// range bound.
type intError struct {
	v     float64
	large bool // an integer, beyond 2^40
}

func (e *intError) Error() string {
	if e.large {
		return fmt.Sprintf("%s is too large (the largest integer qrc takes here is 2^40 = 1099511627776)", strconv.FormatFloat(e.v, 'f', -1, 64))
	}
	return fmt.Sprintf("%s is not an integer", fmtNum(e.v))
}

// phrase is the message about what ("a dimension") having this value.
func (e *intError) phrase(what string) string {
	if e.large {
		return fmt.Sprintf("%s of %s is too large (the largest integer qrc takes here is 2^40 = 1099511627776)", what, strconv.FormatFloat(e.v, 'f', -1, 64))
	}
	return fmt.Sprintf("%s must be an integer, not %s", what, fmtNum(e.v))
}

func selectIndex(x Tensor, idx []int) Tensor {
	switch {
	case len(idx) == 1 && x.Shape.Rank() == 1:
		return Scalar(x.Data[idx[0]-1])
	case len(idx) == 1: // a row
		c := x.Shape[1]
		return Tensor{Shape: Shape{c}, Data: x.Data[(idx[0]-1)*c : idx[0]*c]}
	}
	return Scalar(x.Data[(idx[0]-1)*x.Shape[1]+idx[1]-1])
}

func mapTensor(x Tensor, f func(float64) float64) Tensor {
	out := Tensor{Shape: x.Shape, Data: make([]float64, len(x.Data))}
	for i, v := range x.Data {
		out.Data[i] = f(v)
	}
	return out
}

// broadcast applies f elementwise over args of shape shape or scalars.
func broadcast(shape Shape, args []Tensor, f func([]float64) float64) Tensor {
	n := shape.Size()
	out := Tensor{Shape: shape, Data: make([]float64, n)}
	v := make([]float64, len(args))
	for i := 0; i < n; i++ {
		for k, a := range args {
			if len(a.Data) == 1 {
				v[k] = a.Data[0]
			} else {
				v[k] = a.Data[i]
			}
		}
		out.Data[i] = f(v)
	}
	return out
}

func arith(op string, x, y float64) float64 {
	switch op {
	case "+":
		return x + y
	case "-":
		return x - y
	case "*":
		return x * y
	case "/":
		return x / y
	}
	return math.Pow(x, y)
}

// Holds reports whether the comparison "x op y" (==, !=, <, <=, >, >=) is true.
func Holds(op string, x, y float64) bool {
	switch op {
	case "==":
		return x == y
	case "!=":
		return x != y
	case "<":
		return x < y
	case "<=":
		return x <= y
	case ">":
		return x > y
	}
	return x >= y
}

func boolTensor(b bool) Tensor {
	if b {
		return Scalar(1)
	}
	return Scalar(0)
}

func evalCall(e *Call, ix env) (Tensor, error) {
	args := make([]Tensor, len(e.Args))
	for i, a := range e.Args {
		t, err := eval(a, ix)
		if err != nil {
			return Tensor{}, err
		}
		args[i] = t
	}
	f := e.Func
	switch {
	case f.Name == "dot":
		a, b := args[0], args[1]
		if a.Shape.Rank() == 1 {
			return Scalar(dotVec(a.Data, b.Data)), nil
		}
		m, n := a.Shape[0], a.Shape[1]
		out := Tensor{Shape: Shape{m}, Data: make([]float64, m)}
		for r := 0; r < m; r++ {
			out.Data[r] = dotVec(a.Data[r*n:(r+1)*n], b.Data)
		}
		return out, nil
	case f.Kind == stdlib.Reduction || len(args) == 1 && f.Reduce != nil && !args[0].Shape.IsScalar():
		return Scalar(f.Reduce(args[0].Data)), nil
	case len(e.Params) > 0:
		return mapTensor(args[0], func(z float64) float64 { return f.Scalar(z, e.Params) }), nil
	}
	// n-ary elementwise (max, min) or unary.
	return broadcast(e.shape, args, func(v []float64) float64 { return f.Scalar(v[0], v[1:]) }), nil
}

func dotVec(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// forEach calls f for every assignment of c's binders (in order, the last
// varying fastest) that passes its filter. f returns false to stop.
func forEach(c *Compr, ix env, f func(env) (bool, error)) error {
	return forBinders(c.Binders, c.Where, ix, f)
}

// maxWork is the most index assignments that nested loops over index sets
// may visit at check time; workKey holds, in an env, the number the
// enclosing loops visit.
const maxWork = 10_000_000

var (
	workKey        = &Binder{Name: "(work)"}
	errTooMuchWork = fmt.Errorf("the index sets have more than %d values in all, too many to enumerate", maxWork)
)

func forBinders(bs []*Binder, where Expr, ix env, f func(env) (bool, error)) error {
	local := make(env, len(ix)+len(bs))
	for k, v := range ix {
		local[k] = v
	}
	var rec func(k int) (bool, error)
	rec = func(k int) (bool, error) {
		if k == len(bs) {
			if where != nil {
				t, err := eval(where, local)
				if err != nil {
					return false, err
				}
				if t.Data[0] == 0 {
					return true, nil
				}
			}
			return f(local)
		}
		lo, hi, err := binderBounds(bs[k], local)
		if err != nil {
			return false, err
		}
		// Bound the index values visited by this loop and the loops
		// around it (in enclosing comprehensions too, which pass their
		// env down), so that evaluation at check time always ends.
		work := max(local[workKey], 1)
		if n := hi - lo + 1; n > 0 {
			if n > maxWork/work {
				return false, errTooMuchWork
			}
			local[workKey] = work * n
		}
		for v := lo; v <= hi; v++ {
			local[bs[k]] = v
			if more, err := rec(k + 1); !more || err != nil {
				return more, err
			}
		}
		delete(local, bs[k])
		local[workKey] = work
		return true, nil
	}
	_, err := rec(0)
	return err
}

// binderBounds returns the first and last value of b's set.
func binderBounds(b *Binder, ix env) (int, int, error) {
	if b.Data != nil {
		return 1, b.Data.Set.N(), nil
	}
	lo, err := evalInt(b.Lo, ix)
	if err != nil {
		return 0, 0, err
	}
	hi, err := evalInt(b.Hi, ix)
	return lo, hi, err
}

func evalCompr(c *Compr, ix env) (Tensor, error) {
	var acc Tensor
	count := 0
	err := forEach(c, ix, func(local env) (bool, error) {
		t, err := eval(c.Body, local)
		if err != nil {
			return false, err
		}
		if count == 0 {
			acc = Tensor{Shape: t.Shape, Data: append([]float64(nil), t.Data...)}
		} else {
			for i, v := range t.Data {
				switch c.Op {
				case "sum", "mean":
					acc.Data[i] += v
				case "max":
					acc.Data[i] = math.Max(acc.Data[i], v)
				case "min":
					acc.Data[i] = math.Min(acc.Data[i], v)
				}
			}
		}
		count++
		return true, nil
	})
	if err != nil {
		return Tensor{}, err
	}
	if count == 0 {
		if c.Op == "sum" {
			return Tensor{Shape: c.shape, Data: make([]float64, c.shape.Size())}, nil
		}
		return Tensor{}, fmt.Errorf("%s over an empty set", c.Op)
	}
	if c.Op == "mean" {
		for i := range acc.Data {
			acc.Data[i] /= float64(count)
		}
	}
	return acc, nil
}
