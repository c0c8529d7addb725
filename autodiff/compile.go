package autodiff

import (
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/internal/vmath"
	"github.com/qrc-lang/qrc/limits"
	"github.com/qrc-lang/qrc/stdlib"
)

// maxKonst bounds the number of elements of a constant computed at compile
// time (a filter over an index grid, a gathered block of rows).
const maxKonst = 1 << 28

// compiler turns the checked expressions of a model into instructions.
type compiler struct {
	diags    diag.List
	insts    []*inst
	regs     []*reg
	axes     []*axis
	axisKeys map[string]*axis
	cse      map[string]*reg
	memo     map[memoKey]*reg
	vars     map[*check.Var]*reg
	leaves   map[string]*reg // constants by value, data fields, index values
	cands    int             // the number of candidate axes made
	failed   bool
	scale    SumScale        // CompileScaled's hook, or nil
	sites    map[ast.Pos]int // per source position, the data sums and means scaled so far
	tune     tuning          // the options' thresholds
}

// newCompiler returns a compiler with the scale (or nil) and the options'
// thresholds.
func newCompiler(scale SumScale, opts Options) *compiler {
	return &compiler{scale: scale, tune: opts.tuning(), axisKeys: map[string]*axis{}, cse: map[string]*reg{}, memo: map[memoKey]*reg{}, vars: map[*check.Var]*reg{}, leaves: map[string]*reg{}}
}

type memoKey struct {
	e  check.Expr
	sc *scope
}

// scope maps the comprehension binders in force to their axes.
type scope struct {
	binders map[*check.Binder]*axis
	chain   []*axis // every axis in scope, outermost first
}

func (c *compiler) newScope(parent *scope) *scope {
	sc := &scope{binders: map[*check.Binder]*axis{}}
	if parent != nil {
		for b, a := range parent.binders {
			sc.binders[b] = a
		}
		sc.chain = append(sc.chain, parent.chain...)
	}
	return sc
}

func (c *compiler) errorf(n ast.Node, format string, args ...any) {
	c.failed = true
	if n == nil {
		c.diags.AddAt(ast.Pos{}, format, args...)
		return
	}
	c.diags.Add(n, format, args...)
}

func (c *compiler) newReg(axes []*axis, elem check.Shape, src ast.Node) *reg {
	r := &reg{id: len(c.regs), axes: axes, elem: elem, esize: elem.Size(), prod: -1, src: src}
	c.regs = append(c.regs, r)
	return r
}

// konst returns a constant register holding data (not copied).
func (c *compiler) konst(axes []*axis, elem check.Shape, data []float64, src ast.Node) *reg {
	r := c.newReg(axes, elem, src)
	r.konst = true
	r.val = data
	return r
}

func (c *compiler) scalar(v float64, src ast.Node) *reg {
	return c.konst(nil, nil, []float64{v}, src)
}

// needsAux reports whether an instruction's output records data for the
// reverse pass in reg.aux.
func (in *inst) needsAux() bool {
	switch in.op {
	case opMax2, opMin2, opUnary, opPow, opExpAbs, opSigmoidE:
		return true
	case opAxis:
		return in.axOp == "max" || in.axOp == "min"
	}
	return false
}

// emit adds an instruction, or returns the register of an identical one
// already emitted, or (when every input is constant) computes it now and
// returns a constant.
func (c *compiler) emit(in *inst) *reg {
	if c.failed {
		return nil
	}
	if !(in.op == opDot && in.mode == dotSparse) {
		for k, r := range in.in {
			if r.sp != nil {
				if in.in[k] = c.densify(r); in.in[k] == nil {
					return nil
				}
			}
		}
	}
	if !(in.op == opDot && rowRefDot(in.in[0], in.in[1])) {
		for k, r := range in.in {
			if r.refs != nil {
				if in.in[k] = c.gatherRefs(r); in.in[k] == nil {
					return nil
				}
			}
		}
	}
	var key strings.Builder
	fmt.Fprintf(&key, "%d|%s|%v|%s|%s|%d|%d|%v", in.op, in.out.elem, in.params, in.cmp, in.axOp, in.off, in.mode, in.neg)
	if in.fn != nil {
		key.WriteString("|" + in.fn.Name)
	}
	for _, r := range in.in {
		fmt.Fprintf(&key, "|r%d", r.id)
	}
	if in.ax != nil {
		fmt.Fprintf(&key, "|a%d", in.ax.id)
	}
	if in.mask != nil {
		fmt.Fprintf(&key, "|m%d", in.mask.id)
	}
	for _, a := range in.out.axes {
		fmt.Fprintf(&key, "|o%d", a.id)
	}
	k := key.String()
	if r, ok := c.cse[k]; ok {
		return r
	}
	allKonst := in.op != opVar
	for _, r := range in.in {
		allKonst = allKonst && r.konst
	}
	o := in.out
	n, ok := limits.Mul(o.esize, 1, limits.MaxTerms)
	for _, a := range o.axes {
		if ok {
			n, ok = limits.Mul(n, len(a.vals), limits.MaxTerms)
		}
	}
	if !ok {
		// the checker refuses such comprehensions first; this keeps the
		// compiler safe on its own
		c.errorf(in.src, "internal error: this expression expands to more than %d values (limits.MaxTerms)", limits.MaxTerms)
		return nil
	}
	if allKonst {
		n := o.fullBatch() * o.esize
		if n > maxKonst {
			c.errorf(in.src, "a constant of %d elements is too large to compute at compile time", n)
			return nil
		}
		o.val = make([]float64, n)
		if in.needsAux() {
			o.aux = make([]float64, n)
		}
		if in.op == opReduce {
			in.scratch = make([]float64, in.in[0].esize)
		}
		in.forward(nil, nil, nil)
		o.konst = true
		o.aux = nil
	} else {
		o.prod = len(c.insts)
		c.insts = append(c.insts, in)
	}
	c.cse[k] = o
	return o
}

// expr compiles e in scope sc.
func (c *compiler) expr(e check.Expr, sc *scope) *reg {
	if c.failed {
		return nil
	}
	k := memoKey{e, sc}
	if r, ok := c.memo[k]; ok {
		return r
	}
	r := c.expr1(e, sc)
	if r == nil {
		c.failed = true
	}
	c.memo[k] = r
	return r
}

// leaf returns the constant register stored under key, making it with mk
// the first time, so that equal constants share one register (and the
// instructions that use them can be shared).
func (c *compiler) leaf(key string, mk func() *reg) *reg {
	if r, ok := c.leaves[key]; ok {
		return r
	}
	r := mk()
	c.leaves[key] = r
	return r
}

func (c *compiler) expr1(e check.Expr, sc *scope) *reg {
	src := e.Src()
	switch e := e.(type) {
	case *check.Const:
		mk := func() *reg { return c.konst(nil, e.Value.Shape, e.Value.Data, src) }
		if len(e.Value.Data) > 64 {
			return mk()
		}
		return c.leaf(fmt.Sprintf("const|%v|%v", []int(e.Value.Shape), e.Value.Data), mk)
	case *check.VarRef:
		if r, ok := c.vars[e.Var]; ok {
			return r
		}
		out := c.newReg(nil, e.Var.Shape, e.Var.Decl)
		r := c.emit(&inst{op: opVar, out: out, off: e.Var.Offset, src: e.Var.Decl})
		c.vars[e.Var] = r
		return r
	case *check.DataField:
		return c.leaf("data|"+e.Set.Name+"|"+e.Field, func() *reg { return c.dataField(e) })
	case *check.IndexVal:
		ax := sc.binders[e.Binder]
		if ax == nil {
			c.errorf(src, "internal error: index %s is not bound", e.Binder.Name)
			return nil
		}
		return c.leaf(fmt.Sprintf("index|%p", ax), func() *reg { return c.konst([]*axis{ax}, nil, ax.vals, src) })
	case *check.Index:
		x := c.gatherRefs(c.expr(e.X, sc))
		if x == nil {
			return nil
		}
		if len(e.Idx) > 2 || len(e.Idx) > len(x.elem) {
			c.errorf(src, "internal error: cannot index a %s with %d indices", x.elem, len(e.Idx)) // the checker refuses it first
			return nil
		}
		ins := []*reg{x}
		lists := [][]*axis{x.axes}
		for _, ie := range e.Idx {
			r := c.expr(ie, sc)
			if r == nil {
				return nil
			}
			if !r.konst || r.esize != 1 {
				c.errorf(ie.Src(), "internal error: an index must be a constant integer or depend only on comprehension indices") // the checker refuses it first
				return nil
			}
			ins = append(ins, r)
			lists = append(lists, r.axes)
		}
		if x.sp != nil && x.sp.whole {
			if r := c.sparseGather(x, ins[1:], src); r != nil {
				return r
			}
		}
		if x.store == storeMatrix {
			if r := c.rowRefGather(x, ins[1:], src); r != nil {
				return r
			}
		}
		out := c.newReg(unionAxes(lists...), x.elem[len(e.Idx):], src)
		return c.emit(&inst{op: opGather, out: out, in: ins, src: src})
	case *check.Neg:
		x := c.expr(e.X, sc)
		if x == nil {
			return nil
		}
		return c.emit(&inst{op: opNeg, out: c.newReg(x.axes, x.elem, src), in: []*reg{x}, src: src})
	case *check.Arith:
		return c.arith(e, sc)
	case *check.Call:
		return c.call(e, sc)
	case *check.Compr:
		return c.compr(e, sc)
	case *check.Compare:
		return c.binary(opCmp, e.Op, e.X, e.Y, sc, src)
	case *check.If:
		return c.ifExpr(e, sc)
	case *check.Stack:
		return c.stack(e, sc)
	case *check.Logic:
		switch e.Op {
		case "and":
			return c.binary(opAnd, "", e.X, e.Y, sc, src)
		case "or":
			return c.binary(opOr, "", e.X, e.Y, sc, src)
		}
		x := c.expr(e.X, sc)
		if x == nil {
			return nil
		}
		return c.emit(&inst{op: opNot, out: c.newReg(x.axes, x.elem, src), in: []*reg{x}, src: src})
	}
	c.errorf(src, "internal error: cannot compile %T", e)
	return nil
}

// ifExpr compiles if C then A else B as keep(A, C) + keep(B, not C):
// opKeep passes its first operand where its second is not 0 and 0
// elsewhere, and its adjoint likewise, so the branch not taken adds
// neither its value nor its derivative (not even a NaN or an infinity of
// a branch undefined there: if x > 0 then log(x) else 0 at x = -1 is 0,
// with derivative 0). The condition's comparisons have no derivative.
func (c *compiler) ifExpr(e *check.If, sc *scope) *reg {
	src := e.Src()
	m, a, b := c.expr(e.Cond, sc), c.expr(e.Then, sc), c.expr(e.Else, sc)
	if m == nil || a == nil || b == nil {
		return nil
	}
	not := c.emit(&inst{op: opNot, out: c.newReg(m.axes, m.elem, src), in: []*reg{m}, src: src})
	if not == nil {
		return nil
	}
	ka := c.binaryRegs(opKeep, "", a, m, src)
	kb := c.binaryRegs(opKeep, "", b, not, src)
	if ka == nil || kb == nil {
		return nil
	}
	return c.binaryRegs(opAdd, "", ka, kb, src)
}

// stack compiles a list of expressions: the sum over its elements of
// keep(element, one-hot of its place) (opKeep, so that an element that is
// not finite spoils only its own place), its constant elements added as
// one constant.
func (c *compiler) stack(e *check.Stack, sc *scope) *reg {
	src := e.Src()
	shape := e.Shape()
	n := shape.Size()
	konst := make([]float64, n)
	var acc *reg
	for p, el := range e.Elems {
		r := c.expr(el, sc)
		if r == nil {
			return nil
		}
		if r.esize != 1 {
			c.errorf(src, "internal error: a list element of %d values", r.esize) // the checker gives scalars
			return nil
		}
		if r.konst && len(r.axes) == 0 && r.sp == nil && r.refs == nil {
			konst[p] = r.val[0]
			continue
		}
		hot := make([]float64, n)
		hot[p] = 1
		k := c.binaryRegs(opKeep, "", r, c.konst(nil, shape, hot, src), src)
		if acc == nil {
			acc = k
		} else {
			acc = c.binaryRegs(opAdd, "", acc, k, src)
		}
		if acc == nil {
			return nil
		}
	}
	kc := c.konst(nil, shape, konst, src)
	if acc == nil {
		return kc
	}
	return c.binaryRegs(opAdd, "", acc, kc, src)
}

func (c *compiler) binary(op opcode, cmp string, xe, ye check.Expr, sc *scope, src ast.Node) *reg {
	x, y := c.expr(xe, sc), c.expr(ye, sc)
	if x == nil || y == nil {
		return nil
	}
	return c.binaryRegs(op, cmp, x, y, src)
}

func (c *compiler) binaryRegs(op opcode, cmp string, x, y *reg, src ast.Node) *reg {
	elem := x.elem
	if len(y.elem) > len(elem) {
		elem = y.elem
	}
	out := c.newReg(unionAxes(x.axes, y.axes), elem, src)
	return c.emit(&inst{op: op, cmp: cmp, out: out, in: []*reg{x, y}, src: src})
}

func isConst(e check.Expr, v float64) bool {
	k, ok := e.(*check.Const)
	return ok && k.Value.Shape.IsScalar() && k.Value.Data[0] == v
}

// onePlusExp matches 1 + exp(z) or exp(z) + 1 and returns z.
func onePlusExp(e check.Expr) check.Expr {
	a, ok := e.(*check.Arith)
	if !ok || a.Op != "+" {
		return nil
	}
	x, y := a.X, a.Y
	if isConst(y, 1) {
		x, y = y, x
	}
	if !isConst(x, 1) {
		return nil
	}
	if call, ok := y.(*check.Call); ok && call.Func.Name == "exp" && len(call.Args) == 1 {
		return call.Args[0]
	}
	return nil
}

func (c *compiler) arith(e *check.Arith, sc *scope) *reg {
	src := e.Src()
	switch e.Op {
	case "^":
		k, ok := e.Y.(*check.Const)
		if !ok && e.Y.Deps()&check.DepVar != 0 {
			// x^y with a variable exponent: e^(y log x), for x > 0.
			x, y := c.expr(e.X, sc), c.expr(e.Y, sc)
			if x == nil || y == nil {
				return nil
			}
			l := c.unary(stdlib.Lookup("log"), nil, x, src)
			if l == nil {
				return nil
			}
			m := c.binaryRegs(opMul, "", y, l, src)
			if m == nil {
				return nil
			}
			return c.unary(stdlib.Lookup("exp"), nil, m, src)
		}
		if !ok || !k.Value.Shape.IsScalar() {
			c.errorf(e.Y.Src(), "internal error: the exponent must be a constant scalar") // the checker refuses it first
			return nil
		}
		x := c.expr(e.X, sc)
		if x == nil {
			return nil
		}
		p := k.Value.Data[0]
		if p == 1 {
			return x
		}
		return c.emit(&inst{op: opPow, out: c.newReg(x.axes, x.elem, src), in: []*reg{x}, params: []float64{p}, src: src})
	case "/":
		// 1/(1+exp(z)) is sigmoid(-z), computed without overflow.
		if z := onePlusExp(e.Y); z != nil && isConst(e.X, 1) {
			// strip negations: sigmoid(-(-u)) is sigmoid(u)
			neg := true
			for {
				n, ok := z.(*check.Neg)
				if !ok {
					break
				}
				z, neg = n.X, !neg
			}
			x := c.expr(z, sc)
			if x == nil {
				return nil
			}
			if !neg {
				return c.unary(stdlib.Lookup("sigmoid"), nil, x, src)
			}
			if rowAxis(x) != nil {
				return c.sigmoidE(x, true, src)
			}
			// sigmoid(-z) in one pass: opUnary with neg set
			return c.emit(&inst{op: opUnary, fn: stdlib.Lookup("sigmoid"), neg: true, kern: vmath.SigmoidNegDeriv, out: c.newReg(x.axes, x.elem, src), in: []*reg{x}, src: src})
		}
		return c.binary(opDiv, "", e.X, e.Y, sc, src)
	case "+":
		return c.binary(opAdd, "", e.X, e.Y, sc, src)
	case "-":
		return c.binary(opSub, "", e.X, e.Y, sc, src)
	case "*":
		return c.binary(opMul, "", e.X, e.Y, sc, src)
	}
	c.errorf(src, "internal error: unknown operator %s", e.Op)
	return nil
}

func (c *compiler) unary(f *stdlib.Func, params []float64, x *reg, src ast.Node) *reg {
	if f.Name == "sigmoid" && rowAxis(x) != nil && !x.konst {
		return c.sigmoidE(x, false, src)
	}
	return c.emit(&inst{op: opUnary, fn: f, params: params, kern: kernels[f.Name], out: c.newReg(x.axes, x.elem, src), in: []*reg{x}, src: src})
}

func (c *compiler) call(e *check.Call, sc *scope) *reg {
	src := e.Src()
	f := e.Func
	// log(1 + exp(z)) is logistic(z), computed without overflow.
	if f.Name == "log" && len(e.Args) == 1 {
		if z := onePlusExp(e.Args[0]); z != nil {
			x := c.expr(z, sc)
			if x == nil {
				return nil
			}
			return c.unary(stdlib.Lookup("logistic"), nil, x, src)
		}
	}
	args := make([]*reg, len(e.Args))
	for i, a := range e.Args {
		if args[i] = c.expr(a, sc); args[i] == nil {
			return nil
		}
	}
	switch {
	case f.Kind == stdlib.Dot:
		return c.dot(args[0], args[1], src)
	case f.Kind == stdlib.Reduction || len(args) == 1 && f.Reduce != nil:
		x := args[0]
		if f.Kind != stdlib.Reduction && x.esize == 1 && len(x.elem) == 0 {
			return x // max(z) of a scalar
		}
		return c.emit(&inst{op: opReduce, fn: f, out: c.newReg(x.axes, nil, src), in: []*reg{x}, src: src})
	case f.Name == "max" || f.Name == "min":
		op := opMax2
		if f.Name == "min" {
			op = opMin2
		}
		r := args[0]
		for _, a := range args[1:] {
			if r = c.binaryRegs(op, "", r, a, src); r == nil {
				return nil
			}
		}
		return r
	case f.Deriv != nil:
		return c.unary(f, e.Params, args[0], src)
	}
	c.errorf(src, "internal error: %s has no compiled form", f.Name)
	return nil
}

// sigmoidE compiles the sigmoid of x (of -x when neg) over rows from the
// exponential e^-|x|, one instruction (opExpAbs) that every sigmoid of x,
// of -x and of c*x with a constant c of ±1 (a label y in {-1, 1}) shares:
// sigmoid(z) and sigmoid(-z) of the same margins, and phi(y z), take one
// exponential per row, not one each. The values are those of the fused
// sigmoid kernels, bit for bit.
//
// The sigmoid of k*z, k a constant of ±1 with z's axes, takes k as an
// input instead (the sign of the product, and of its derivative, from
// k's), so the product k*z need not be formed (Program.prune drops it
// when nothing else reads it).
func (c *compiler) sigmoidE(x *reg, neg bool, src ast.Node) *reg {
	arg, sign := x, (*reg)(nil)
	if k, o := c.signProduct(x); k != nil {
		arg, sign = o, k
	}
	base := c.absBase(arg)
	e := c.emit(&inst{op: opExpAbs, out: c.newReg(base.axes, base.elem, src), in: []*reg{base}, src: src})
	if e == nil {
		return nil
	}
	in := []*reg{arg, e}
	if sign != nil {
		in = append(in, sign)
	}
	return c.emit(&inst{op: opSigmoidE, fn: stdlib.Lookup("sigmoid"), neg: neg, out: c.newReg(x.axes, x.elem, src), in: in, src: src})
}

// signProduct returns k and o when x = k*o with k a constant of -1s and 1s
// with the axes and (scalar) element of x and of o, else nils.
func (c *compiler) signProduct(x *reg) (k, o *reg) {
	if x.prod < 0 || c.insts[x.prod].op != opMul || x.esize != 1 {
		return nil, nil
	}
	in := c.insts[x.prod]
	k, o = in.in[0], in.in[1]
	if !k.konst {
		k, o = o, k
	}
	if !k.konst || o.konst || !sameAxes(k.axes, x.axes) || !sameAxes(o.axes, x.axes) || k.esize != 1 || o.esize != 1 {
		return nil, nil
	}
	for _, v := range k.val[:k.size()] {
		if v != 1 && v != -1 {
			return nil, nil
		}
	}
	return k, o
}

// absBase returns the register whose absolute values x's are: x itself, or
// through negations and products with constants that are all -1 or 1 (of
// no more axes than x), the register they apply to.
func (c *compiler) absBase(x *reg) *reg {
	for x.prod >= 0 {
		in := c.insts[x.prod]
		var next *reg
		switch in.op {
		case opNeg:
			next = in.in[0]
		case opMul:
			k, o := in.in[0], in.in[1]
			if !k.konst {
				k, o = o, k
			}
			if !k.konst || o.konst || k.esize != 1 || len(k.axes) > len(o.axes) {
				return x
			}
			for _, v := range k.val[:k.size()] {
				if v != 1 && v != -1 {
					return x
				}
			}
			next = o
		default:
			return x
		}
		if !sameAxes(next.axes, x.axes) || !slices.Equal(next.elem, x.elem) {
			return x
		}
		x = next
	}
	return x
}

// dot compiles dot(a, b) and picks the BLAS form from the operands' axes.
func (c *compiler) dot(a, b *reg, src ast.Node) *reg {
	axes := unionAxes(a.axes, b.axes) // rows by reference: emit gathers them unless rowRefDot
	if a.sp != nil || b.sp != nil {
		if sparseDotOK(a, b) {
			return c.emit(&inst{op: opDot, mode: dotSparse, out: c.newReg(axes, nil, src), in: []*reg{a, b}, src: src})
		}
		if a, b = c.densify(a), c.densify(b); a == nil || b == nil {
			return nil
		}
	}
	var elem check.Shape
	mode := dotGeneral
	if len(a.elem) == 2 {
		elem = check.Shape{a.elem[0]}
		if len(a.axes) == 0 {
			mode = dotMat
		}
	} else {
		disjoint := len(unionAxes(a.axes, b.axes)) == len(a.axes)+len(b.axes)
		switch {
		case sameAxes(a.axes, b.axes):
			mode = dotRowwise
		case disjoint && precedes(a.axes, b.axes):
			mode = dotAB
		case disjoint && precedes(b.axes, a.axes):
			mode = dotBA
		}
	}
	out := c.newReg(axes, elem, src)
	return c.emit(&inst{op: opDot, mode: mode, out: out, in: []*reg{a, b}, src: src})
}

// precedes reports whether every axis of a is shallower than every axis of b.
func precedes(a, b []*axis) bool {
	if len(a) == 0 || len(b) == 0 {
		return true
	}
	return a[len(a)-1].depth < b[0].depth
}

// newAxis returns the axis of a binder with the given values, shared with
// an earlier axis of the same values, op and enclosing axes.
func (c *compiler) newAxis(vals []float64, sc *scope, set *check.DataSet, op string, masked bool) *axis {
	h := fnv.New64a()
	var buf [8]byte
	for _, v := range vals {
		u := math.Float64bits(v)
		for i := range buf {
			buf[i] = byte(u >> (8 * i))
		}
		h.Write(buf[:])
	}
	var key strings.Builder
	fmt.Fprintf(&key, "%d|%x|%s|%v", len(vals), h.Sum64(), op, masked)
	if set != nil {
		key.WriteString("|" + set.Name)
	}
	for _, a := range sc.chain {
		key.WriteString("|" + strconv.Itoa(a.id))
	}
	if a, ok := c.axisKeys[key.String()]; ok {
		return a
	}
	a := &axis{id: len(c.axes), depth: len(sc.chain), data: set, vals: vals, n: len(vals), op: op}
	c.axes = append(c.axes, a)
	c.axisKeys[key.String()] = a
	return a
}

// compr compiles a comprehension: its index axes (with the filters that
// select their values now, and a mask for those that relate them to
// enclosing indices), then its body over them, reduced along them.
func (c *compiler) compr(e *check.Compr, sc *scope) *reg {
	src := e.Src()
	if r, done := c.foldRange(e, sc); done {
		return r
	}
	cands, mask, ok := c.comprCandidates(e, sc)
	if !ok {
		return nil
	}
	own, inner, mask := c.comprAxes(e, sc, cands, mask)
	scaled := c.scale != nil && e.Data != nil && (e.Op == "mean" || e.Op == "sum")
	for k, ax := range own {
		if ax.n == 0 {
			if e.Op == "sum" || scaled { // a shard's empty part of a data mean adds nothing
				body := e.Body.Shape()
				return c.konst(nil, body, make([]float64, body.Size()), src)
			}
			c.errorf(src, "%s over an empty set: no value of %s satisfies the filter", e.Op, e.Binders[k].Name)
			return nil
		}
	}
	if e.Op == "sum" && mask == nil && len(own) == 1 {
		if r := c.sumDot(e, own[0], inner); r != nil {
			if scaled {
				return c.scaleSums(e, r, c.scalar(float64(own[0].n), src), src)
			}
			return r
		}
	}
	body := c.expr(e.Body, inner)
	if body == nil {
		return nil
	}
	return c.comprReduce(e, body, own, mask, scaled)
}

// comprCandidates returns the candidate axes of e's binders (ids of their
// own, not shared yet) with every value their bounds or data allow, and
// the mask of the filters that could not select values (nil when there is
// none): bounds that depend on an enclosing index, and the where filter
// unless the checker resolved it (e.Rows). A filter on the only index
// selects that axis's values here and leaves no mask.
func (c *compiler) comprCandidates(e *check.Compr, sc *scope) (cands []*axis, mask *reg, ok bool) {
	src := e.Src()
	cand := c.newScope(sc)
	and := func(m *reg) {
		if mask == nil {
			mask = m
		} else {
			mask = c.binaryRegs(opAnd, "", mask, m, src)
		}
	}
	for _, b := range e.Binders {
		vals, lo, hi, ok := c.binderValues(e, b, cand)
		if !ok {
			return nil, nil, false
		}
		c.cands++ // candidate axes get ids of their own, -1, -2, ...
		ax := &axis{id: -c.cands, depth: len(cand.chain), data: b.Data, vals: vals, n: len(vals)}
		cand.binders[b] = ax
		cand.chain = append(cand.chain, ax)
		cands = append(cands, ax)
		if lo != nil && (len(lo.axes) > 0 || len(hi.axes) > 0) {
			iv := c.konst([]*axis{ax}, nil, vals, b.Src)
			and(c.binaryRegs(opCmp, ">=", iv, lo, b.Src))
			and(c.binaryRegs(opCmp, "<=", iv, hi, b.Src))
		}
	}
	// a filter the checker resolved to e.Rows is not compiled again
	if e.Where != nil && !(e.Rows != nil && len(e.Binders) == 1) {
		w := c.expr(e.Where, cand)
		if w == nil {
			return nil, nil, false
		}
		if !w.konst {
			c.errorf(e.Where.Src(), "internal error: a where filter must not depend on variables") // the checker refuses it first
			return nil, nil, false
		}
		and(w)
	}
	if c.failed {
		return nil, nil, false
	}
	// A filter on the comprehension's only index selects its values now.
	if mask != nil && len(cands) == 1 && (len(mask.axes) == 0 || len(mask.axes) == 1 && mask.axes[0] == cands[0]) {
		var sel []float64
		for i, v := range cands[0].vals {
			if mask.val[i*len(mask.axes)] != 0 {
				sel = append(sel, v)
			}
		}
		cands[0].vals, cands[0].n = sel, len(sel)
		mask = nil
	}
	return cands, mask, true
}

// binderValues returns the values the binder b of e may take before
// filters: the rows the checker selected (e.Rows), every row of its data
// set, or every integer between the extremes of its bounds lo and hi,
// compiled in the scope cand (constants, which may vary over enclosing
// indices).
func (c *compiler) binderValues(e *check.Compr, b *check.Binder, cand *scope) (vals []float64, lo, hi *reg, ok bool) {
	if b.Data != nil {
		if e.Rows != nil && len(e.Binders) == 1 {
			vals = make([]float64, len(e.Rows))
			for i, r := range e.Rows {
				vals[i] = float64(r)
			}
		} else {
			vals = make([]float64, b.Data.Set.N())
			for i := range vals {
				vals[i] = float64(i + 1)
			}
		}
		return vals, nil, nil, true
	}
	lo, hi = c.expr(b.Lo, cand), c.expr(b.Hi, cand)
	if lo == nil || hi == nil {
		return nil, nil, nil, false
	}
	if !lo.konst || !hi.konst {
		c.errorf(b.Src, "internal error: the bounds of %s must not depend on variables", b.Name) // the checker refuses it first
		return nil, nil, nil, false
	}
	l, h := math.Inf(1), math.Inf(-1)
	for _, v := range lo.val {
		l = math.Min(l, v)
	}
	for _, v := range hi.val {
		h = math.Max(h, v)
	}
	if n := math.Floor(h) - math.Ceil(l) + 1; n > limits.MaxRangeValues { // the checker refuses it first (rangeExpandable)
		c.errorf(b.Src, "internal error: the range of %s has %s values, more than the %d qrc expands (limits.MaxRangeValues); an index the body does not use is folded, and a filter comparing it with constants narrows it", b.Name, strconv.FormatFloat(n, 'g', -1, 64), limits.MaxRangeValues)
		return nil, nil, nil, false
	}
	for v := math.Ceil(l); v <= h; v++ {
		vals = append(vals, v)
	}
	return vals, lo, hi, true
}

// comprAxes returns the final axes of e's binders, shared with identical
// earlier ones (newAxis), the scope that binds them for the body, and the
// mask re-expressed over them.
func (c *compiler) comprAxes(e *check.Compr, sc *scope, cands []*axis, mask *reg) (own []*axis, inner *scope, _ *reg) {
	own = make([]*axis, len(cands))
	inner = c.newScope(sc)
	for k, b := range e.Binders {
		ax := c.newAxis(cands[k].vals, inner, b.Data, e.Op, mask != nil)
		inner.binders[b] = ax
		inner.chain = append(inner.chain, ax)
		own[k] = ax
	}
	if mask != nil { // re-express the mask over the final axes
		axes := slices.Clone(mask.axes)
		for i, a := range axes {
			if k := slices.Index(cands, a); k >= 0 {
				axes[i] = own[k]
			}
		}
		mask = c.konst(axes, mask.elem, mask.val, mask.src)
	}
	return own, inner, mask
}

// comprReduce reduces body along the comprehension's axes own, innermost
// first, skipping what mask leaves out: a masked mean (or a shard's
// scaled sum) becomes a sum divided by the count of selected entries.
func (c *compiler) comprReduce(e *check.Compr, body *reg, own []*axis, mask *reg, scaled bool) *reg {
	src := e.Src()
	var maskAxes []*axis
	if mask != nil {
		maskAxes = mask.axes
	}
	need := unionAxes(body.axes, own, maskAxes)
	r := body
	if !sameAxes(need, body.axes) {
		r = c.emit(&inst{op: opExpand, out: c.newReg(need, body.elem, src), in: []*reg{body}, src: src})
	}
	op := e.Op
	var count *reg
	if scaled && mask == nil {
		op = "sum"
		count = c.scalar(float64(rowsOf(own)), src)
	}
	if mask != nil {
		mask = c.expand(mask, need, src)
		if op == "mean" || scaled {
			op = "sum"
			count = mask
			for k := len(own) - 1; k >= 0; k-- {
				count = c.reduceAxis(count, own[k], "sum", nil, src)
			}
			for _, v := range count.val {
				if v == 0 && !scaled {
					c.errorf(src, "mean over an empty set for some values of the enclosing indices")
					return nil
				}
			}
		}
	}
	for k := len(own) - 1; k >= 0; k-- {
		r = c.reduceAxis(r, own[k], op, mask, src)
		if r == nil {
			return nil
		}
		if mask != nil && k > 0 {
			mask = c.reduceAxis(mask, own[k], "max", nil, src)
			all := true
			for _, v := range mask.val {
				all = all && v != 0
			}
			if all {
				mask = nil
			} else {
				mask = c.expand(mask, r.axes, src)
			}
		}
	}
	if scaled {
		return c.scaleSums(e, r, count, src)
	}
	if count != nil {
		r = c.binaryRegs(opDiv, "", r, count, src)
	}
	if e.IsExpectation() && !c.failed {
		a := own[0]
		a.means = append(a.means, src.Pos())
	}
	return r
}

// sumDot compiles sum(j in ...) a * b, where both factors vary with j as
// their innermost axis, as dot(a, b): each factor's last axis read as its
// element (a view, no copy), so the product over rows is a BLAS product
// and no rows x j intermediate is formed. It returns nil for any other sum.
func (c *compiler) sumDot(e *check.Compr, j *axis, sc *scope) *reg {
	ar, ok := e.Body.(*check.Arith)
	if !ok || ar.Op != "*" || !ar.X.Shape().IsScalar() || !ar.Y.Shape().IsScalar() {
		return nil
	}
	x, y := c.expr(ar.X, sc), c.expr(ar.Y, sc)
	inner := func(r *reg) bool {
		return r != nil && len(r.elem) == 0 && len(r.axes) > 0 && r.axes[len(r.axes)-1] == j
	}
	if !inner(x) || !inner(y) {
		return nil
	}
	src := e.Src()
	return c.dot(c.view(x, src), c.view(y, src), src)
}

// view returns r, whose last axis is the innermost, with that axis read as
// its element: the same numbers in the same order.
func (c *compiler) view(r *reg, src ast.Node) *reg {
	axes := slices.Clone(r.axes[:len(r.axes)-1])
	if r.sp != nil && r.sp.cols {
		return c.sparseView(r, src)
	}
	if r.refs != nil && r.refs.cols {
		return c.rowRefView(r, src)
	}
	if r = c.gatherRefs(c.densify(r)); r == nil {
		return nil
	}
	elem := check.Shape{r.axes[len(r.axes)-1].n}
	if r.konst {
		return c.konst(axes, elem, r.val, src)
	}
	return c.emit(&inst{op: opView, out: c.newReg(axes, elem, src), in: []*reg{r}, src: src})
}

// expand broadcasts a constant register to the given axes.
func (c *compiler) expand(m *reg, axes []*axis, src ast.Node) *reg {
	if sameAxes(m.axes, axes) {
		return m
	}
	return c.emit(&inst{op: opExpand, out: c.newReg(axes, m.elem, src), in: []*reg{m}, src: src})
}

func (c *compiler) reduceAxis(x *reg, ax *axis, op string, mask *reg, src ast.Node) *reg {
	var axes []*axis
	for _, a := range x.axes {
		if a != ax {
			axes = append(axes, a)
		}
	}
	return c.emit(&inst{op: opAxis, ax: ax, axOp: op, mask: mask, out: c.newReg(axes, x.elem, src), in: []*reg{x}, src: src})
}

// dataField returns the constant register of a data set's X, y or column.
func (c *compiler) dataField(e *check.DataField) *reg {
	src := e.Src()
	set := e.Set.Set
	switch e.Field {
	case "X":
		if set.X == nil && set.Sparse != nil {
			return c.sparseMatrix(set.Sparse, src)
		}
		raw := set.X.RawMatrix()
		data := raw.Data
		if raw.Stride != raw.Cols {
			data = make([]float64, raw.Rows*raw.Cols)
			for i := 0; i < raw.Rows; i++ {
				copy(data[i*raw.Cols:], raw.Data[i*raw.Stride:i*raw.Stride+raw.Cols])
			}
		}
		r := c.konst(nil, check.Shape{raw.Rows, raw.Cols}, data[:raw.Rows*raw.Cols], src)
		r.store = storeMatrix
		return r
	case "y":
		return c.konst(nil, check.Shape{len(set.Y)}, set.Y, src)
	}
	col, ok := set.Columns[e.Field]
	if !ok {
		c.errorf(src, "internal error: data set %s has no column %q", e.Set.Name, e.Field) // the checker refuses it first
		return nil
	}
	return c.konst(nil, check.Shape{len(col)}, col, src)
}

// foldRange computes a comprehension over one range index without
// expanding the range when it can (limits.MaxRangeValues): a filter that
// compares the index with constants (==, <, <=, >, >=, joined by and) is
// turned into narrower bounds, and a body that does not use the index is
// folded: sum(j in l..h) body is n * body, and mean, max and min are the
// body itself. done is false when it does not apply (the caller expands);
// r is nil after an error.
func (c *compiler) foldRange(e *check.Compr, sc *scope) (r *reg, done bool) {
	if len(e.Binders) != 1 || e.Binders[0].Data != nil || e.Binders[0].Lo == nil {
		return nil, false
	}
	b := e.Binders[0]
	uses := func(x check.Expr) bool {
		found := false
		check.Walk(x, func(n check.Expr) bool {
			if iv, ok := n.(*check.IndexVal); ok && iv.Binder == b {
				found = true
			}
			return !found
		})
		return found
	}
	if uses(e.Body) {
		return nil, false
	}
	bound := func(x check.Expr) (float64, bool) {
		if uses(x) {
			return 0, false
		}
		k := c.expr(x, sc)
		if k == nil || !k.konst || len(k.axes) > 0 || len(k.val) != 1 {
			return 0, false
		}
		return k.val[0], true
	}
	lo, ok1 := bound(b.Lo)
	hi, ok2 := bound(b.Hi)
	if !ok1 || !ok2 || c.failed {
		return nil, false
	}
	lo, hi = math.Ceil(lo), math.Floor(hi)
	// the filter's comparisons of the index with constants
	var conds []check.Expr
	var split func(x check.Expr) bool
	split = func(x check.Expr) bool {
		if l, ok := x.(*check.Logic); ok && l.Op == "and" {
			return split(l.X) && split(l.Y)
		}
		conds = append(conds, x)
		return true
	}
	if e.Where != nil {
		split(e.Where)
	}
	for _, x := range conds {
		cmp, ok := x.(*check.Compare)
		if !ok {
			return nil, false
		}
		op, other := cmp.Op, cmp.Y
		if iv, ok := cmp.X.(*check.IndexVal); !ok || iv.Binder != b {
			iv, ok := cmp.Y.(*check.IndexVal)
			if !ok || iv.Binder != b {
				return nil, false
			}
			op = map[string]string{"==": "==", "<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}[op]
			other = cmp.X
		}
		v, ok := bound(other)
		if !ok || math.IsNaN(v) {
			return nil, false
		}
		switch op {
		case "==":
			if v != math.Trunc(v) {
				lo, hi = 1, 0 // no integer index equals it
			} else {
				lo, hi = math.Max(lo, v), math.Min(hi, v)
			}
		case "<":
			hi = math.Min(hi, math.Ceil(v)-1)
		case "<=":
			hi = math.Min(hi, math.Floor(v))
		case ">":
			lo = math.Max(lo, math.Floor(v)+1)
		case ">=":
			lo = math.Max(lo, math.Ceil(v))
		default:
			return nil, false // != and the rest are expanded
		}
	}
	n := math.Max(0, hi-lo+1)
	src := e.Src()
	if n == 0 {
		if e.Op == "sum" {
			body := e.Body.Shape()
			return c.konst(nil, body, make([]float64, body.Size()), src), true
		}
		c.errorf(src, "%s over an empty set: no value of %s satisfies the filter", e.Op, b.Name)
		return nil, true
	}
	body := c.expr(e.Body, sc)
	if body == nil {
		return nil, true
	}
	if e.Op != "sum" || n == 1 {
		return body, true // the same value n times: its mean, max and min
	}
	return c.binaryRegs(opMul, "", c.konst(nil, nil, []float64{n}, src), body, src), true
}
