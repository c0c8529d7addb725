package check

import (
	"fmt"
	"strings"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/domain"
)

// maxProdTerms is the most factors a product comprehension may expand to.
const maxProdTerms = 100_000

// expandProd turns the checked comprehension prod(binders where cond)
// body into the product of its body at every index value, multiplied as a
// balanced tree of * (so that it nests log2 of the factors deep, not as
// many): the compiler, the evaluator and the weak-convexity analysis then
// see ordinary products. The index sets must be known when the model is
// checked (not depend on an enclosing index); the body may use enclosing
// indices. A product over an empty set is 1.
func (c *checker) expandProd(r *Compr, ce *ast.Comprehension, sc *scope) Expr {
	if free := freeOfBinders(r); free != "" {
		c.errorf(ce, "prod(...) needs index sets known when the model is checked; its set depends on the enclosing index %s", free)
		return nil
	}
	var envs []env
	err := forEach(r, nil, func(ix env) (bool, error) {
		if len(envs) == maxProdTerms {
			return false, fmt.Errorf("more than %d factors", maxProdTerms)
		}
		cp := make(env, len(r.Binders))
		for _, b := range r.Binders {
			cp[b] = ix[b]
		}
		envs = append(envs, cp)
		return true, nil
	})
	if err != nil {
		c.errorf(ce, "cannot expand prod(...): %v", err)
		return nil
	}
	if len(envs) == 0 {
		sh := r.Body.Shape()
		ones := make([]float64, sh.Size())
		for i := range ones {
			ones[i] = 1
		}
		return &Const{node: node{shape: sh, src: ce}, Value: Tensor{Shape: sh, Data: ones}}
	}
	factors := make([]Expr, 0, len(envs))
	saved := c.ctx
	for _, ix := range envs {
		inst := &scope{parent: sc, names: map[string]Expr{}}
		var at []string
		for _, b := range r.Binders {
			inst.names[b.Name] = &Const{node: node{src: b.Src.Name}, Value: Scalar(float64(ix[b]))}
			at = append(at, fmt.Sprintf("%s = %d", b.Name, ix[b]))
		}
		c.ctx = append(saved[:len(saved):len(saved)], "in prod at "+strings.Join(at, ", "))
		f := c.expr(ce.Body, inst)
		c.ctx = saved
		if f == nil {
			return nil
		}
		factors = append(factors, f)
	}
	return c.productTree(factors, ce)
}

// productTree multiplies fs as a balanced tree.
func (c *checker) productTree(fs []Expr, src ast.Node) Expr {
	if len(fs) == 1 {
		return fs[0]
	}
	h := len(fs) / 2
	x, y := c.productTree(fs[:h], src), c.productTree(fs[h:], src)
	return fold(&Arith{node: node{shape: x.Shape(), dep: x.Deps() | y.Deps(), src: src}, Op: "*", X: x, Y: y})
}

// freeOfBinders returns the name of an enclosing index that r's index sets
// or filter depend on, or "".
func freeOfBinders(r *Compr) string {
	own := map[*Binder]bool{}
	for _, b := range r.Binders {
		own[b] = true
	}
	var parts []Expr
	for _, b := range r.Binders {
		if b.Lo != nil {
			parts = append(parts, b.Lo, b.Hi)
		}
	}
	if r.Where != nil {
		parts = append(parts, r.Where)
	}
	for _, p := range parts {
		for b := range freeBinders(p) {
			if !own[b] {
				return b.Name
			}
		}
	}
	return ""
}

// positiveBase checks the base x of x^y with a variable exponent y, which
// is e^(y log x) and defined for x > 0 only. A constant base must be
// positive; a variable (or an element of one at a constant index) must
// have a domain that keeps it above 0 (box(lo, hi) with lo > 0): anything
// else is an error. An element at an index that depends on a comprehension
// draws a warning when some element of the variable can reach 0; a base
// computed from variables is left to the weak-convexity analysis, which
// bounds its range on the domain and refuses x^y where it can reach 0.
func (c *checker) positiveBase(x Expr, n ast.Expr) bool {
	const need = "x^y with a variable exponent is e^(y log x), defined for x > 0 only"
	switch x := x.(type) {
	case *Const:
		for _, v := range x.Value.Data {
			if !(v > 0) {
				c.errorf(n, "%s; the base is %s", need, fmtNum(v))
				return false
			}
		}
	case *VarRef:
		switch i := nonPositiveElem(x.Var, nil); {
		case i < -1:
			c.errorf(n, "%s, but %s reaches 0 or below on its domain %s; give it a domain above 0, e.g. box(1e-6, hi)", need, x.Var.Name, x.Var.Domain)
			return false
		case i >= 0:
			c.errorf(n, "%s, but %s can be %s on its domain %s; give it a domain above 0, e.g. box(1e-6, hi)", need, x.Var.Name, fmtNum(x.Var.Domain.Lo[i]), x.Var.Domain)
			return false
		}
	case *Index:
		v, ok := x.X.(*VarRef)
		if !ok {
			return true
		}
		var elems []int
		constant := true
		for _, ie := range x.Idx {
			if _, ok := ie.(*Const); !ok {
				constant = false
			}
		}
		if constant {
			elems = elementsAt(v.Var.Shape, x.Idx)
		}
		i := nonPositiveElem(v.Var, elems)
		switch {
		case i < -1:
			c.errorf(n, "%s, but %s reaches 0 or below on its domain %s; give it a domain above 0, e.g. box(1e-6, hi)", need, ExprString(n), v.Var.Domain)
			return false
		case i < 0:
		case constant:
			c.errorf(n, "%s, but %s can be %s on its domain %s; give it a domain above 0, e.g. box(1e-6, hi)", need, ExprString(n), fmtNum(v.Var.Domain.Lo[i]), v.Var.Domain)
			return false
		default:
			c.warnf(n, "%s, but some elements of %s can be %s or less on its domain %s", need, v.Var.Name, fmtNum(max(0, v.Var.Domain.Lo[i])), v.Var.Domain)
		}
	}
	return true
}

// nonPositiveElem returns an element of v (among elems, or any when elems
// is nil) whose domain lets it reach 0 or below: its index in the box's
// bounds, -2 when the domain is not a box (which always reaches 0), or -1
// when there is none.
func nonPositiveElem(v *Var, elems []int) int {
	d := v.Domain
	if d == nil {
		return -1
	}
	if d.Kind != domain.Box {
		return -2
	}
	if elems == nil {
		for i := range d.Lo {
			if !(d.Lo[i] > 0) {
				return i
			}
		}
		return -1
	}
	for _, i := range elems {
		if i >= 0 && i < len(d.Lo) && !(d.Lo[i] > 0) {
			return i
		}
	}
	return -1
}

// elementsAt returns the flat positions of x[idx] for constant 1-based
// indices idx into a value of the given shape (a row of a matrix is
// several).
func elementsAt(sh Shape, idx []Expr) []int {
	k := make([]int, len(idx))
	for i, e := range idx {
		k[i] = int(e.(*Const).Value.Data[0]) - 1
	}
	switch {
	case len(k) == 2:
		return []int{k[0]*sh[1] + k[1]}
	case sh.Rank() == 2:
		out := make([]int, sh[1])
		for j := range out {
			out[j] = k[0]*sh[1] + j
		}
		return out
	}
	return []int{k[0]}
}

// evalCompare checks a comparison (or and, or) of scalars in an expression
// that is only evaluated: 1 when it holds, 0 otherwise.
func (c *checker) evalCompare(b *ast.Binary, sc *scope) Expr {
	x, y := c.expr(b.X, sc), c.expr(b.Y, sc)
	if x == nil || y == nil {
		return nil
	}
	for _, side := range []struct {
		x Expr
		n ast.Expr
	}{{x, b.X}, {y, b.Y}} {
		if !side.x.Shape().IsScalar() {
			c.errorf(side.n, "%s compares scalars, not a %s", b.Op, side.x.Shape())
			return nil
		}
	}
	n := node{dep: x.Deps() | y.Deps(), src: b}
	if b.Op == "and" || b.Op == "or" {
		return &Logic{node: n, Op: b.Op, X: x, Y: y}
	}
	return &Compare{node: n, Op: b.Op, X: x, Y: y}
}
