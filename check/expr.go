package check

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/limits"
	"github.com/qrc-lang/qrc/stdlib"
)

// expr checks an expression in scope sc (nil: the global scope). It returns
// nil after reporting an error. It stays within the budgets of package limits: the
// number of expression nodes the model expands to (functions are inlined
// and indexed constraints expanded, so a small model can ask for very
// many) and the depth of nesting (every pass over the tree is recursive).
// Over a budget it reports the error once and checks nothing more.
func (c *checker) expr(e ast.Expr, sc *scope) Expr {
	if c.overBudget {
		return nil
	}
	c.nodes++
	if c.nodes > limits.MaxExprNodes {
		c.overBudget = true
		c.errorf(e, "the model expands to more than %d expression nodes once its functions are inlined and its indexed constraints expanded (limits.MaxExprNodes)", limits.MaxExprNodes)
		return nil
	}
	if b, ok := e.(*ast.Binary); !ok || b.Op == "^" {
		c.depth++
		defer func() { c.depth-- }()
		if c.depth > limits.MaxDepth {
			c.overBudget = true
			c.errorf(e, "the expression is nested more than %d levels deep once its functions are inlined (limits.MaxDepth)", limits.MaxDepth)
			return nil
		}
	}
	x := c.expr1(e, sc)
	if x == nil {
		return nil
	}
	// An inlined function's parameter is shared by every use of it, so
	// the checked expression is a graph that can be far larger and deeper
	// as a tree (which is how evaluation and analysis walk it) than the
	// nodes checked.
	switch sh := c.shapeOf(x); {
	case sh.size > limits.MaxExprNodes:
		c.overBudget = true
		c.errorf(e, "the expression expands to more than %d nodes once its functions are inlined (each use of a function's parameter copies its argument; limits.MaxExprNodes)", limits.MaxExprNodes)
		return nil
	case sh.height > limits.MaxTreeDepth:
		c.overBudget = true
		c.errorf(e, "the expression is more than %d levels deep once its functions are inlined (a sum of that many terms nests that deep; limits.MaxTreeDepth)", limits.MaxTreeDepth)
		return nil
	}
	return x
}

// treeShape is the size and height of a checked expression as a tree.
type treeShape struct{ size, height int }

// shapeOf returns x's size as a tree (saturating just above
// limits.MaxExprNodes) and height, memoized: the operands of a node are
// checked before it, so the recursion rarely goes more than one level
// down.
func (c *checker) shapeOf(x Expr) treeShape {
	if t, ok := c.trees[x]; ok {
		return t
	}
	t := treeShape{size: 1}
	for _, k := range operands(x) {
		kt := c.shapeOf(k)
		t.size = min(t.size+kt.size, limits.MaxExprNodes+1)
		t.height = max(t.height, kt.height)
	}
	t.height++
	if c.trees == nil {
		c.trees = map[Expr]treeShape{}
	}
	c.trees[x] = t
	return t
}

func (c *checker) expr1(e ast.Expr, sc *scope) Expr {
	switch e := e.(type) {
	case *ast.Number:
		if math.IsInf(e.Value, 0) {
			c.errorf(e, "number %s is out of range", e.Lit)
			return nil
		}
		return &Const{node: node{src: e}, Value: Scalar(e.Value)}
	case *ast.String:
		c.errorf(e, "a string is not a number; strings are only used for data files and column names")
		return nil
	case *ast.Ident:
		return c.ident(e, sc)
	case *ast.Paren:
		return c.expr(e.X, sc)
	case *ast.Vector:
		return c.vector(e, sc)
	case *ast.Unary:
		if e.Op == "not" && c.evalOnly {
			x := c.expr(e.X, sc)
			if x == nil {
				return nil
			}
			if !x.Shape().IsScalar() {
				c.errorf(e.X, "not applies to a scalar, not a %s", x.Shape())
				return nil
			}
			return &Logic{node: node{dep: x.Deps(), src: e}, Op: "not", X: x}
		}
		if e.Op == "not" {
			c.errorf(e, "not is only allowed in a where filter or %s", EvalNote)
			return nil
		}
		x := c.expr(e.X, sc)
		if x == nil || e.Op == "+" {
			return x
		}
		if k, ok := x.(*Const); ok {
			return &Const{node: node{src: e}, Value: mapTensor(k.Value, func(v float64) float64 { return -v })}
		}
		return &Neg{node: node{shape: x.Shape(), dep: x.Deps(), src: e}, X: x}
	case *ast.Binary:
		return c.binary(e, sc)
	case *ast.Call:
		return c.call(e, sc)
	case *ast.Index:
		return c.index(e, sc)
	case *ast.Member:
		return c.member(e)
	case *ast.Range:
		c.errorf(e, "a range lo..hi can only follow `in`, as in sum(j in 1..n) ...")
		return nil
	case *ast.Comprehension:
		return c.compr(e, sc)
	case *ast.If:
		return c.ifExpr(e, sc)
	}
	c.errorf(e, "unexpected expression")
	return nil
}

func (c *checker) ident(id *ast.Ident, sc *scope) Expr {
	if x, ok := sc.lookup(id.Name); ok {
		return x
	}
	g, ok := c.globals[id.Name]
	if !ok {
		switch what := c.reservedName(id.Name); {
		case c.rejected[id.Name]:
			// its declaration was refused, with an error there
		case id.Name == "rows":
			c.errorf(id, "rows is only meaningful in a domain: var W[m, n] in ball(r, rows)")
		case id.Name == "inf":
			c.errorf(id, "inf is only meaningful as a bound of a box: var x in box(0, inf); values must be finite")
		case what != "":
			c.errorf(id, "%q is %s; call it with arguments", id.Name, what)
		case c.bodyEnds[id.NamePos] != (bodyEnd{}):
			c.errorf(id, "unknown name %q: %s", id.Name, c.unknownBodyEnd(id))
		default:
			cands := append(c.namesOfKind(""), sc.allNames()...)
			c.errorf(id, "unknown name %q%s", id.Name, DidYouMean(id.Name, cands))
		}
		return nil
	}
	if !c.resolveGlobal(g, id) {
		return nil
	}
	switch {
	case g.param != nil:
		return &Const{node: node{shape: g.param.Value.Shape, src: id}, Value: g.param.Value}
	case g.v != nil:
		g.v.Used = true
		return &VarRef{node: node{shape: g.v.Shape, dep: DepVar, src: id}, Var: g.v}
	case g.data != nil:
		c.errorf(id, "data set %q is not a value; use its fields: %s.X[i], %s.y[i], %s.n, %s.d", id.Name, id.Name, id.Name, id.Name, id.Name)
	case g.fn != nil:
		c.errorf(id, "%q is a function; call it: %s(...)", id.Name, id.Name)
	}
	return nil
}

func (c *checker) vector(v *ast.Vector, sc *scope) Expr {
	if len(v.Elems) == 0 {
		c.errorf(v, "an empty list has no value")
		return nil
	}
	elems := make([]Expr, len(v.Elems))
	dynamic := false
	for k, el := range v.Elems {
		if elems[k] = c.expr(el, sc); elems[k] == nil {
			return nil
		}
		dynamic = dynamic || elems[k].Deps()&(DepVar|DepIndex) != 0
	}
	if dynamic {
		return c.listExpr(v, elems)
	}
	var out Tensor
	for k, el := range v.Elems {
		x := elems[k]
		t, err := eval(x, nil)
		if err != nil {
			c.errorf(el, "cannot evaluate: %v", err)
			return nil
		}
		if t.Shape.Rank() > 1 {
			c.errorf(el, "a list holds numbers or lists of numbers, not a %s", t.Shape)
			return nil
		}
		if k == 0 {
			out.Shape = Shape{len(v.Elems)}
			if t.Shape.Rank() == 1 {
				out.Shape = Shape{len(v.Elems), t.Shape[0]}
			}
		} else if t.Shape.Rank() != out.Shape.Rank()-1 || t.Shape.Rank() == 1 && t.Shape[0] != out.Shape[1] {
			first := "a number"
			if out.Shape.Rank() == 2 {
				first = fmt.Sprintf("a list of %d", out.Shape[1])
			}
			c.errorf(el, "list elements must all have the same shape: the first is %s, this is a %s", first, t.Shape)
			return nil
		}
		out.Data = append(out.Data, t.Data...)
	}
	return &Const{node: node{shape: out.Shape, src: v}, Value: out}
}

// MaxListElems bounds the elements of a list whose elements depend on the
// variables or on an index (the compiler places each one by its own
// instruction over the whole list); a list of constants may be as long as
// the model.
const MaxListElems = 1024

// listExpr checks a list with an element that depends on the variables or on
// an index: numbers or vectors of one length, as in a list of constants.
func (c *checker) listExpr(v *ast.Vector, elems []Expr) Expr {
	first := elems[0].Shape()
	dep := Dep(0)
	for k, x := range elems {
		sh := x.Shape()
		if sh.Rank() > 1 {
			c.errorf(v.Elems[k], "a list holds numbers or vectors, not a %s", sh)
			return nil
		}
		if !sh.Equal(first) && !(sh.IsScalar() && first.IsScalar()) {
			c.errorf(v.Elems[k], "list elements must all have the same shape: the first is a %s, this is a %s", shapeWord(first), shapeWord(sh))
			return nil
		}
		dep |= x.Deps()
	}
	shape := Shape{len(elems)}
	if first.Rank() == 1 {
		shape = Shape{len(elems), first[0]}
	}
	if n := shape.Size(); n > MaxListElems {
		c.errorf(v, "a list whose elements depend on the variables or on an index holds at most %d numbers, this one %d; use a vector variable or a comprehension", MaxListElems, n)
		return nil
	}
	r := &Stack{node: node{shape: shape, dep: dep, src: v}}
	for _, x := range elems {
		r.Elems = append(r.Elems, Elements(x)...)
	}
	return r
}

// shapeWord names a shape in a message: "number" for a scalar.
func shapeWord(s Shape) string {
	if s.IsScalar() {
		return "number"
	}
	return s.String()
}

var arithOps = map[string]bool{"+": true, "-": true, "*": true, "/": true, "^": true}

func (c *checker) binary(b *ast.Binary, sc *scope) Expr {
	if !arithOps[b.Op] {
		switch {
		case c.evalOnly:
			return c.evalCompare(b, sc)
		case b.Op == "and" || b.Op == "or":
			c.errorf(b, "%s is only allowed in a where filter or %s", b.Op, EvalNote)
		default:
			c.errorf(opAt(b), "a comparison is 0 or 1, a step that is not differentiable, so it is only allowed in a where filter, as a constraint (name: lhs <= rhs), or in %s; in the objective or a constraint write a smooth surrogate of the step, such as sigmoid(k * (a - b)) for a > b, or choose between two expressions with if a > b then ... else ...", EvalNote)
		}
		return nil
	}
	x, y := c.expr(b.X, sc), c.expr(b.Y, sc)
	if x == nil || y == nil {
		return nil
	}
	if b.Op == "^" {
		k, ok := y.(*Const)
		switch {
		case y.Deps()&DepVar != 0:
			// x^y with a variable exponent, e^(y log x): defined for x > 0.
			if !c.positiveBase(x, b.X) {
				return nil
			}
		case !ok || !k.Value.Shape.IsScalar():
			why := "it is not a scalar"
			if y.Deps()&DepIndex != 0 {
				why = "it depends on an index (an indexed constraint, name[k in S]: ... x^k ..., substitutes its value)"
			}
			c.errorf(b.Y, "the exponent of ^ must be a constant scalar or depend on a variable; %s", why)
			return nil
		}
	}
	shape, ok := broadcastShape(x.Shape(), y.Shape())
	if !ok {
		c.errorf(opAt(b), "shape mismatch: %s %s %s", x.Shape(), b.Op, y.Shape())
		return nil
	}
	r := &Arith{node: node{shape: shape, dep: x.Deps() | y.Deps(), src: b}, Op: b.Op, X: x, Y: y}
	return fold(r)
}

// fold replaces an operation on constants by its value.
func fold(e Expr) Expr {
	if e.Deps() != 0 {
		return e
	}
	switch e.(type) {
	case *Arith, *Call, *Neg, *Index, *If:
	default:
		return e
	}
	t, err := eval(e, nil)
	if err != nil {
		return e
	}
	return &Const{node: node{shape: t.Shape, src: e.Src()}, Value: t}
}

func broadcastShape(a, b Shape) (Shape, bool) {
	switch {
	case a.IsScalar():
		return b, true
	case b.IsScalar():
		return a, true
	case a.Equal(b):
		return a, true
	}
	return nil, false
}

// opAt spans a binary expression's operator.
func opAt(b *ast.Binary) ast.Node { return &spanNode{b.OpPos, len(b.Op)} }

type spanNode struct {
	pos ast.Pos
	n   int
}

func (s *spanNode) Pos() ast.Pos { return s.pos }
func (s *spanNode) End() ast.Pos {
	e := s.pos
	e.Offset += s.n
	e.Column += s.n
	return e
}

func (c *checker) call(call *ast.Call, sc *scope) Expr {
	name := call.Fun.Name
	if g, ok := c.globals[name]; ok && g.kind == "function" {
		return c.inline(call, g, sc)
	}
	if g, ok := c.globals[name]; ok {
		c.errorf(call.Fun, "%q is a %s, not a function", name, g.kind)
		return nil
	}
	f := stdlib.Lookup(name)
	switch {
	case slices.Contains(loaders, name):
		c.errorf(call.Fun, "%s can only be used in a data declaration: data NAME = %s(\"file\")", name, name)
		return nil
	case slices.Contains(domains, name):
		c.errorf(call.Fun, "%s is a domain; it can only follow `in` in a variable declaration: var x[n] in %s(...)", name, name)
		return nil
	case f == nil:
		c.errorf(call.Fun, "unknown function %q%s", name, DidYouMean(name, c.callableNames()))
		return nil
	}
	for _, a := range call.Args {
		if a.Name != nil {
			c.errorf(a.Name, "%s takes no named arguments", name)
			return nil
		}
	}
	if n := len(call.Args); n < f.MinArgs || f.MaxArgs >= 0 && n > f.MaxArgs {
		c.errorf(call, "%s takes %s, got %d", name, argCount(f), n)
		return nil
	}
	args := make([]Expr, len(call.Args))
	dep := Dep(0)
	for i, a := range call.Args {
		if args[i] = c.expr(a.Value, sc); args[i] == nil {
			return nil
		}
		dep |= args[i].Deps()
	}
	r := &Call{node: node{dep: dep, src: call}, Func: f, Args: args}
	switch {
	case f.Kind == stdlib.Dot:
		a, b := args[0].Shape(), args[1].Shape()
		switch {
		case a.Rank() == 1 && b.Rank() == 1 && a[0] == b[0]:
		case a.Rank() == 2 && b.Rank() == 1 && a[1] == b[0]:
			r.shape = Shape{a[0]}
		case a.Rank() == 1 && b.Rank() == 1:
			c.errorf(call, "dot of vectors of lengths %d and %d; they must have the same length", a[0], b[0])
			return nil
		case a.Rank() == 2 && b.Rank() == 1:
			c.errorf(call, "dot of a %s and a vector of length %d: the matrix needs %d columns", a, b[0], b[0])
			return nil
		default:
			c.errorf(call, "dot takes two vectors of equal length, or a matrix and a vector; got a %s and a %s", a, b)
			return nil
		}
	case f.Kind == stdlib.Reduction:
		// any shape to a scalar
	case f.ParamArgs > 0:
		nz := len(args) - f.ParamArgs
		r.shape = args[0].Shape()
		for k := nz; k < len(args); k++ {
			k0, ok := args[k].(*Const)
			if !ok || !k0.Value.Shape.IsScalar() {
				c.errorf(call.Args[k].Value, "argument %d of %s must be a constant scalar", k+1, name)
				return nil
			}
			r.Params = append(r.Params, k0.Value.Data[0])
		}
		r.Args = args[:nz]
		r.dep = args[0].Deps()
		if msg := f.CheckParams(r.Params); msg != "" {
			c.errorf(call, "%s: %s", name, msg)
			return nil
		}
	case len(args) == 1 && f.Reduce != nil: // max(v), min(v)
	default: // elementwise
		shape := Shape(nil)
		for i, a := range args {
			s, ok := broadcastShape(shape, a.Shape())
			if !ok {
				c.errorf(call.Args[i].Value, "%s: argument %d is a %s but an earlier one is a %s", name, i+1, a.Shape(), shape)
				return nil
			}
			shape = s
		}
		r.shape = shape
	}
	return fold(r)
}

func argCount(f *stdlib.Func) string {
	switch {
	case f.MaxArgs < 0:
		return fmt.Sprintf("at least %d argument%s", f.MinArgs, plural(f.MinArgs))
	case f.MinArgs == f.MaxArgs:
		return fmt.Sprintf("%d argument%s", f.MinArgs, plural(f.MinArgs))
	}
	return fmt.Sprintf("%d to %d arguments", f.MinArgs, f.MaxArgs)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// inline checks a call of a user function by checking its body with the
// parameters bound to the argument expressions.
func (c *checker) inline(call *ast.Call, g *global, sc *scope) Expr {
	if !c.resolveGlobal(g, call) {
		return nil
	}
	fn := g.fn
	g.calls++
	for _, s := range c.stack {
		if s == g {
			c.errorf(call, "function %q calls itself; functions are inlined and cannot be recursive", fn.Name)
			return nil
		}
	}
	if len(call.Args) != len(fn.Params) {
		c.errorf(call, "%s takes %d argument%s (%s), got %d", fn.Name, len(fn.Params), plural(len(fn.Params)),
			strings.Join(fn.Params, ", "), len(call.Args))
		return nil
	}
	body := &scope{names: map[string]Expr{}}
	for i, a := range call.Args {
		if a.Name != nil {
			c.errorf(a.Name, "arguments of %s are positional", fn.Name)
			return nil
		}
		x := c.expr(a.Value, sc)
		if x == nil {
			return nil
		}
		body.names[fn.Params[i]] = x
	}
	c.stack = append(c.stack, g)
	c.ctx = append(c.ctx, fmt.Sprintf("in %s called at %d:%d", fn.Name, call.Pos().Line, call.Pos().Column))
	x := c.expr(fn.Decl.Body, body)
	c.ctx = c.ctx[:len(c.ctx)-1]
	c.stack = c.stack[:len(c.stack)-1]
	return x
}

func (c *checker) member(m *ast.Member) Expr {
	id, ok := m.X.(*ast.Ident)
	var g *global
	if ok {
		g = c.globals[id.Name]
	}
	if g == nil || g.kind != "data set" {
		switch {
		case !ok:
			c.errorf(m.Name, "only data sets have fields")
		case g == nil:
			c.errorf(id, "unknown data set %q%s", id.Name, DidYouMean(id.Name, c.namesOfKind("data set")))
		default:
			c.errorf(m.Name, "%q is a %s; only data sets have fields", id.Name, g.kind)
		}
		return nil
	}
	if !c.resolveGlobal(g, id) {
		return nil
	}
	ds := g.data
	s := ds.Set
	if f := m.Name.Name; (f == "n" || f == "d" || f == "X" || f == "y" && s.LabelName != "y") && (s.Columns[f] != nil || s.Text[f] != nil) {
		// a column with a field's name cannot be reached as D.name
		what := map[string]string{"n": "number of rows", "d": "number of features", "X": "feature matrix", "y": "label column"}[f]
		c.warnf(m.Name, "data set %q has a column named %q, but %s.%s is the set's %s, not that column (rename the column in the file to use it)", ds.Name, f, ds.Name, f, what)
	}
	switch field := m.Name.Name; field {
	case "n":
		return &Const{node: node{src: m}, Value: Scalar(float64(s.N()))}
	case "d":
		return &Const{node: node{src: m}, Value: Scalar(float64(s.D()))}
	case "X": // a sparse set's uses are sorted out by denseSets
		return &DataField{node: node{shape: Shape{s.N(), s.D()}, dep: DepData, src: m}, Set: ds, Field: "X"}
	case "y":
		if s.Y == nil {
			loader := "csv"
			if ds.Loader == "parquet" {
				loader = ds.Loader
			}
			c.errorf(m.Name, "data set %q has no labels; name the label column: %s(\"...\", label = \"y\")", ds.Name, loader)
			return nil
		}
		return &DataField{node: node{shape: Shape{s.N()}, dep: DepData, src: m}, Set: ds, Field: "y"}
	default:
		if t, ok := s.Text[field]; ok {
			if !c.textOK {
				c.errorf(m.Name, "column %q of %s holds text; compare it with a string in a where filter, e.g. where %s.%s[i] == %q",
					field, ds.Name, ds.Name, field, firstLevel(t))
				return nil
			}
			c.textCol, c.textName = t, ds.Name+"."+field
			return &DataField{node: node{shape: Shape{s.N()}, dep: DepData, src: m}, Set: ds, Field: field}
		}
		if col, ok := s.Columns[field]; ok {
			if col == nil && s.N() > 0 { // not loaded (Options.UsedColumns): cannot happen for a name in the file
				c.errorf(m.Name, "internal error: the values of column %q of data set %q were not loaded", field, ds.Name)
				return nil
			}
			return &DataField{node: node{shape: Shape{s.N()}, dep: DepData, src: m}, Set: ds, Field: field}
		}
		cands := append([]string{"X", "y", "n", "d"}, sortedKeys(s.Columns)...)
		c.errorf(m.Name, "data set %q has no field or column %q%s; fields are X, y, n, d%s", ds.Name, field,
			DidYouMean(field, cands), columnList(s.Columns))
		return nil
	}
}

func columnList(cols map[string][]float64) string {
	if len(cols) == 0 {
		return ""
	}
	return " and its columns " + strings.Join(sortedKeys(cols), ", ")
}

func (c *checker) index(ix *ast.Index, sc *scope) Expr {
	x := c.expr(ix.X, sc)
	if x == nil {
		return nil
	}
	shape := x.Shape()
	if len(ix.Indices) > shape.Rank() {
		if shape.IsScalar() {
			c.errorf(ix, "%s is a scalar; it cannot be indexed", ExprString(ix.X))
		} else {
			c.errorf(ix, "%s is a %s; it takes at most %d ind%s, not %d", ExprString(ix.X), shape, shape.Rank(),
				map[bool]string{true: "ex", false: "ices"}[shape.Rank() == 1], len(ix.Indices))
		}
		return nil
	}
	r := &Index{node: node{shape: shape[len(ix.Indices):], dep: x.Deps(), src: ix}, X: x}
	if r.shape.IsScalar() {
		r.shape = nil
	}
	for k, ie := range ix.Indices {
		i := c.expr(ie, sc)
		if i == nil {
			return nil
		}
		if !i.Shape().IsScalar() {
			c.errorf(ie, "an index must be a scalar, not a %s", i.Shape())
			return nil
		}
		if i.Deps()&DepVar != 0 {
			c.errorf(ie, "an index cannot depend on a decision variable")
			return nil
		}
		if !c.checkBounds(ie, i, shape[k], x, k, len(ix.Indices)) {
			return nil
		}
		r.Idx = append(r.Idx, i)
		r.dep |= i.Deps()
	}
	return fold(r)
}

// checkBounds checks that index expression i (source n) stays within 1..dim
// for every value its indices can take.
func (c *checker) checkBounds(n ast.Expr, i Expr, dim int, x Expr, axis, nidx int) bool {
	what := func() string {
		name := ExprString(x.Src().(ast.Expr))
		switch {
		case x.Shape().Rank() == 1:
			return fmt.Sprintf("%s has length %d", name, dim)
		case axis == 0:
			return fmt.Sprintf("%s has %d rows", name, dim)
		}
		return fmt.Sprintf("%s has %d columns", name, dim)
	}
	if k, ok := i.(*Const); ok {
		v, err := toInt(k.Value.Data[0])
		if err != nil {
			c.errorf(n, "%s", err.(*intError).phrase("an index"))
			return false
		}
		if v < 1 || v > dim {
			c.errorf(n, "index %d is out of range: %s (indices start at 1)", v, what())
			return false
		}
		return true
	}
	lo, hi, ok := c.interval(i)
	if !ok || lo >= 1 && hi <= float64(dim) {
		return true
	}
	// The interval ignores where filters; enumerate the enclosing ranges
	// exactly when that is cheap.
	bad, env, exact := c.enumerateIndex(i, dim)
	if exact && bad == nil {
		return true
	}
	if exact {
		var parts []string
		for b, v := range env {
			parts = append(parts, fmt.Sprintf("%s = %d", b.Name, v))
		}
		slices.Sort(parts)
		c.errorf(n, "index %s = %d is out of range when %s: %s", ExprString(n), *bad, strings.Join(parts, ", "), what())
		return false
	}
	c.errorf(n, "index %s ranges over %s..%s, out of range: %s", ExprString(n), fmtNum(lo), fmtNum(hi), what())
	return false
}

// interval bounds the values of a static scalar expression from the sets
// its indices range over; ok is false when it cannot tell.
func (c *checker) interval(e Expr) (lo, hi float64, ok bool) {
	switch e := e.(type) {
	case *Const:
		if e.Value.Shape.IsScalar() {
			return e.Value.Data[0], e.Value.Data[0], true
		}
	case *IndexVal:
		b := e.Binder
		if b.Data != nil {
			return 1, float64(b.Data.Set.N()), true
		}
		l, _, ok1 := c.interval(b.Lo)
		_, h, ok2 := c.interval(b.Hi)
		return l, h, ok1 && ok2
	case *Neg:
		l, h, ok := c.interval(e.X)
		return -h, -l, ok
	case *Arith:
		l1, h1, ok1 := c.interval(e.X)
		l2, h2, ok2 := c.interval(e.Y)
		if !ok1 || !ok2 {
			return 0, 0, false
		}
		switch e.Op {
		case "+":
			return l1 + l2, h1 + h2, true
		case "-":
			return l1 - h2, h1 - l2, true
		case "*":
			p := []float64{l1 * l2, l1 * h2, h1 * l2, h1 * h2}
			lo, hi = p[0], p[0]
			for _, v := range p {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			return lo, hi, true
		}
	case *Index:
		if df, ok := e.X.(*DataField); ok && df.Field != "X" {
			t, _ := dataTensor(df) // not X: no error
			lo, hi = math.Inf(1), math.Inf(-1)
			for _, v := range t.Data {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			return lo, hi, len(t.Data) > 0
		}
	}
	return 0, 0, false
}

// enumerateIndex evaluates i for every assignment of the enclosing
// comprehensions' range indices that passes their filters. It returns the
// first out-of-range value with its assignment; exact is false when that
// would be too costly or involves data rows.
func (c *checker) enumerateIndex(i Expr, dim int) (bad *int, at env, exact bool) {
	free := freeBinders(i)
	if len(free) == 0 {
		return nil, nil, false
	}
	// The frames from the outermost one that binds a free index inward.
	first := -1
	for k, f := range c.frames {
		for _, b := range f.binders {
			if free[b] && first < 0 {
				first = k
			}
		}
	}
	if first < 0 {
		return nil, nil, false
	}
	frames := c.frames[first:]
	for _, f := range frames {
		for _, b := range f.binders {
			if b.Data != nil {
				return nil, nil, false
			}
		}
	}
	budget := 1_000_000
	var rec func(k int, ix env) (bool, error)
	rec = func(k int, ix env) (bool, error) {
		if k == len(frames) {
			budget--
			if budget < 0 {
				return false, errBudget
			}
			v, err := evalInt(i, ix)
			if err != nil {
				return false, err
			}
			if v < 1 || v > dim {
				bad = &v
				at = env{}
				for b := range free {
					at[b] = ix[b]
				}
				return false, nil
			}
			return true, nil
		}
		more := true
		err := forBinders(frames[k].binders, frames[k].where, ix, func(local env) (bool, error) {
			var err error
			more, err = rec(k+1, local)
			return more, err
		})
		return more, err
	}
	if _, err := rec(0, env{}); err != nil {
		return nil, nil, false
	}
	return bad, at, true
}

var errBudget = fmt.Errorf("too many index values to enumerate")

// freeBinders returns the indices e depends on that it does not bind itself.
func freeBinders(e Expr) map[*Binder]bool {
	free := map[*Binder]bool{}
	bound := map[*Binder]bool{}
	Walk(e, func(x Expr) bool {
		switch x := x.(type) {
		case *IndexVal:
			if !bound[x.Binder] {
				free[x.Binder] = true
			}
		case *Compr:
			for _, b := range x.Binders {
				bound[b] = true
			}
		}
		return true
	})
	return free
}

// binder checks "name in set" and returns the index it binds.
func (c *checker) binder(b *ast.Binder, sc *scope) *Binder {
	bd := &Binder{Name: b.Name.Name, Src: b}
	if r, ok := b.Set.(*ast.Range); ok {
		for k, e := range []ast.Expr{r.Lo, r.Hi} {
			x := c.expr(e, sc)
			if x == nil {
				return nil
			}
			if !x.Shape().IsScalar() || x.Deps()&DepVar != 0 {
				c.errorf(e, "a range bound must be a scalar that does not depend on a variable")
				return nil
			}
			if k0, ok := x.(*Const); ok {
				if _, err := toInt(k0.Value.Data[0]); err != nil {
					c.errorf(e, "%s", err.(*intError).phrase("a range bound"))
					return nil
				}
			}
			if k == 0 {
				bd.Lo = x
			} else {
				bd.Hi = x
			}
		}
		return bd
	}
	id, ok := b.Set.(*ast.Ident)
	if ok {
		if g, isG := c.globals[id.Name]; isG && g.kind == "data set" {
			if _, shadow := sc.lookup(id.Name); !shadow {
				if !c.resolveGlobal(g, id) {
					return nil
				}
				bd.Data = g.data
				return bd
			}
		}
	}
	msg := fmt.Sprintf("%s can range over a range lo..hi or the rows of a data set", b.Name.Name)
	if ok {
		g, known := c.globals[id.Name]
		_, local := sc.lookup(id.Name)
		switch {
		case local:
			msg = fmt.Sprintf("%s is not an index set; for the integers 1 to %s write 1..%s", id.Name, id.Name, id.Name)
		case known && g.kind == "parameter":
			msg = fmt.Sprintf("%s is a parameter, not an index set; for the integers 1 to %s write 1..%s", id.Name, id.Name, id.Name)
		case known:
			msg = fmt.Sprintf("%s is a %s, not an index set; %s can range over a range lo..hi or the rows of a data set", id.Name, g.kind, b.Name.Name)
		default:
			msg = fmt.Sprintf("unknown data set %q%s; %s can range over a range lo..hi or the rows of a data set",
				id.Name, DidYouMean(id.Name, c.namesOfKind("data set")), b.Name.Name)
		}
	}
	c.errorf(b.Set, "%s", msg)
	return nil
}

func (c *checker) compr(ce *ast.Comprehension, sc *scope) Expr {
	op := ce.Op.Name
	if !stdlib.IsComprehension(op) {
		msg := fmt.Sprintf("%s(%s in ...) is not a comprehension; only sum, mean, max, min and prod range over an index set", op, ce.Binders[0].Name.Name)
		if g, ok := c.globals[op]; ok && g.kind == "function" {
			msg += fmt.Sprintf("; to apply %s to each term, write sum(%s in ...) %s(...)", op, ce.Binders[0].Name.Name, op)
		}
		c.errorf(ce.Op, "%s", msg)
		return nil
	}
	inner := &scope{parent: sc, names: map[string]Expr{}}
	r := &Compr{node: node{src: ce}, Op: op}
	for _, b := range ce.Binders {
		bd := c.binder(b, inner)
		if bd == nil {
			return nil
		}
		if _, dup := inner.names[bd.Name]; dup {
			c.errorf(b.Name, "index %q is bound twice", bd.Name)
			return nil
		}
		if bd.Data != nil && r.Data == nil {
			r.Data = bd.Data
		}
		r.Binders = append(r.Binders, bd)
		inner.names[bd.Name] = &IndexVal{node: node{dep: DepIndex, src: b.Name}, Binder: bd}
	}
	terms := 1.0
	if len(c.frames) > 0 {
		terms = c.frames[len(c.frames)-1].terms
	}
	for _, b := range r.Binders {
		terms *= c.binderSize(b)
	}
	if terms > limits.MaxTerms {
		c.errorf(ce, "%s(...) expands to %.4g terms with the index sets around it; the most qrc evaluates is %d (limits.MaxTerms)", op, terms, limits.MaxTerms)
		return nil
	}
	fr := &frame{binders: r.Binders, terms: terms}
	c.frames = append(c.frames, fr)
	defer func() { c.frames = c.frames[:len(c.frames)-1] }()
	if ce.Where != nil {
		r.Where = c.cond(ce.Where, inner)
		if r.Where == nil {
			return nil
		}
		fr.where = r.Where
	}
	body := c.expr(ce.Body, inner)
	if body == nil {
		return nil
	}
	r.Body = body
	if t := terms * float64(body.Shape().Size()); t > limits.MaxTerms {
		c.errorf(ce, "%s(...) expands to %.4g terms (a %s for each of %.4g index values); the most qrc evaluates is %d (limits.MaxTerms)", op, t, body.Shape(), terms, limits.MaxTerms)
		return nil
	}
	r.shape = body.Shape()
	r.dep = body.Deps()
	if r.Where != nil {
		r.dep |= r.Where.Deps() &^ DepVar
	}
	if !c.rangeExpandable(r) {
		return nil
	}
	if !c.resolveRows(r, ce) {
		return nil
	}
	if op == "prod" {
		return c.expandProd(r, ce, sc)
	}
	return fold(r)
}

// emptyFor returns the first values of the enclosing comprehensions'
// indices ("i = 3, k = 1") for which r, whose index set depends on them,
// has no index value, or "" when there are none or they cannot be
// enumerated at check time (too many, or an error the evaluation reports
// elsewhere).
func (c *checker) emptyFor(r *Compr) string {
	outer := c.frames[:len(c.frames)-1] // the last frame is r's own
	var at string
	var rec func(k int, ix env) (bool, error)
	rec = func(k int, ix env) (bool, error) {
		if k < len(outer) {
			err := forBinders(outer[k].binders, outer[k].where, ix, func(local env) (bool, error) {
				return rec(k+1, local)
			})
			return at == "", err
		}
		found := false
		if err := forEach(r, ix, func(env) (bool, error) { found = true; return false, nil }); err != nil {
			return false, err
		}
		if !found {
			var vals []string
			for _, f := range outer {
				for _, b := range f.binders {
					vals = append(vals, fmt.Sprintf("%s = %d", b.Name, ix[b]))
				}
			}
			at = strings.Join(vals, ", ")
		}
		return found, nil
	}
	if _, err := rec(0, env{}); err != nil {
		return ""
	}
	return at
}

// rangeExpandable refuses, as the compiler does, a range index with more
// than limits.MaxRangeValues values that the body uses, or that shares its
// comprehension with other indices: the compiler expands those (it folds
// only the single range index of a body that does not use it, narrowed by
// a filter that compares it with constants), so that qrc check accepts
// the models qrc eval and solve compile.
func (c *checker) rangeExpandable(r *Compr) bool {
	for _, b := range r.Binders {
		if b.Data != nil {
			continue
		}
		n := c.binderSize(b)
		if n <= limits.MaxRangeValues || (len(r.Binders) == 1 && !usesBinder(r.Body, b)) {
			continue
		}
		c.errorf(b.Src, "the range of %s has %s values, more than the %d qrc expands (limits.MaxRangeValues); an index the body does not use is folded, and a filter comparing it with constants narrows it", b.Name, strconv.FormatFloat(n, 'g', -1, 64), limits.MaxRangeValues)
		return false
	}
	return true
}

// usesBinder reports whether e refers to the index b.
func usesBinder(e Expr, b *Binder) bool {
	used := false
	Walk(e, func(x Expr) bool {
		if iv, ok := x.(*IndexVal); ok && iv.Binder == b {
			used = true
		}
		return !used
	})
	return used
}

// binderSize is the number of values b takes at most, as far as the
// checker can bound it (1 when it cannot).
func (c *checker) binderSize(b *Binder) float64 {
	if b.Data != nil {
		return float64(b.Data.Set.N())
	}
	lo, _, ok1 := c.interval(b.Lo)
	_, hi, ok2 := c.interval(b.Hi)
	if !ok1 || !ok2 || hi < lo {
		return 1
	}
	return math.Floor(hi) - math.Ceil(lo) + 1
}

// resolveRows computes the rows a filter over one data binder selects, and
// reports empty sets where that is known at check time.
func (c *checker) resolveRows(r *Compr, ce *ast.Comprehension) bool {
	free := map[*Binder]bool{}
	for _, b := range r.Binders {
		if b.Lo != nil {
			for fb := range freeBinders(b.Lo) {
				free[fb] = true
			}
			for fb := range freeBinders(b.Hi) {
				free[fb] = true
			}
		}
	}
	if r.Where != nil {
		for fb := range freeBinders(r.Where) {
			free[fb] = true
		}
	}
	for _, b := range r.Binders {
		delete(free, b)
	}
	if len(free) > 0 { // depends on outer indices: rows resolved per value later
		// Only a mean: the compiler merges a max inside a max (or min in
		// min), where an empty inner set adds nothing.
		if r.Op != "mean" || r.Data != nil {
			return true
		}
		if at := c.emptyFor(r); at != "" {
			c.errorf(ce, "%s over an empty set when %s", r.Op, at)
			return false
		}
		return true
	}
	if len(r.Binders) == 1 && r.Data != nil {
		if r.Where == nil {
			return true
		}
		rows, ok := filterRows(r.Where, r.Binders[0], r.Data.Set.N())
		var err error
		if !ok {
			rows = []int{}
			err = forEach(r, nil, func(ix env) (bool, error) {
				rows = append(rows, ix[r.Binders[0]])
				return true, nil
			})
		}
		if err != nil {
			c.errorf(ce.Where, "cannot evaluate the filter: %v", err)
			return false
		}
		r.Rows = rows
		if len(rows) == 0 && r.Op != "sum" && r.Op != "prod" {
			c.errorf(ce.Where, "no row of %s satisfies %s: the %s is over an empty set", r.Data.Name, ExprString(ce.Where), r.Op)
			return false
		}
		return true
	}
	if r.Op == "sum" || r.Op == "prod" {
		return true
	}
	for _, b := range r.Binders {
		if b.Data != nil {
			return true // nonempty unless filtered; cheap enough only for ranges
		}
	}
	found := false
	err := forEach(r, nil, func(env) (bool, error) {
		found = true
		return false, nil // one is enough
	})
	if err == nil && !found {
		c.errorf(ce, "%s over an empty set", r.Op)
		return false
	}
	return true
}

// ifExpr checks the conditional if C then A else B: C a condition (as in
// a where filter, but it may depend on the variables), A and B of shapes
// that broadcast. A condition known at check time selects its branch.
func (c *checker) ifExpr(e *ast.If, sc *scope) Expr {
	cond := c.condition(e.Cond, sc, true)
	x, y := c.expr(e.Then, sc), c.expr(e.Else, sc)
	if cond == nil || x == nil || y == nil {
		return nil
	}
	shape, ok := broadcastShape(x.Shape(), y.Shape())
	if !ok {
		c.errorf(e, "the branches of if have different shapes: then a %s, else a %s", x.Shape(), y.Shape())
		return nil
	}
	r := &If{node: node{shape: shape, dep: cond.Deps() | x.Deps() | y.Deps(), src: e}, Cond: cond, Then: x, Else: y}
	if cond.Deps() == 0 {
		t, err := eval(cond, nil)
		if err != nil {
			c.errorf(e.Cond, "cannot evaluate the condition: %v", err)
			return nil
		}
		b := y
		if t.Data[0] != 0 {
			b = x
		}
		if b.Shape().Equal(shape) {
			return b
		}
	}
	return fold(r)
}

// cond checks a where filter.
func (c *checker) cond(e ast.Expr, sc *scope) Expr { return c.condition(e, sc, false) }

// condition checks a where filter, or (vars) the condition of an if,
// which may depend on the variables.
func (c *checker) condition(e ast.Expr, sc *scope, vars bool) Expr {
	switch e := e.(type) {
	case *ast.Paren:
		return c.condition(e.X, sc, vars)
	case *ast.Unary:
		if e.Op == "not" {
			x := c.condition(e.X, sc, vars)
			if x == nil {
				return nil
			}
			return &Logic{node: node{dep: x.Deps(), src: e}, Op: "not", X: x}
		}
	case *ast.Binary:
		switch e.Op {
		case "and", "or":
			x, y := c.condition(e.X, sc, vars), c.condition(e.Y, sc, vars)
			if x == nil || y == nil {
				return nil
			}
			return &Logic{node: node{dep: x.Deps() | y.Deps(), src: e}, Op: e.Op, X: x, Y: y}
		case "==", "!=", "<", "<=", ">", ">=":
			if isStringCompare(e) {
				return c.textCompare(e, sc)
			}
			x, y := c.expr(e.X, sc), c.expr(e.Y, sc)
			if x == nil || y == nil {
				return nil
			}
			for _, side := range []struct {
				x Expr
				n ast.Expr
			}{{x, e.X}, {y, e.Y}} {
				if !side.x.Shape().IsScalar() {
					what := "a filter"
					if vars {
						what = "the condition of if"
					}
					c.errorf(side.n, "a comparison in %s needs scalars, not a %s", what, side.x.Shape())
					return nil
				}
				if side.x.Deps()&DepVar != 0 && !vars {
					c.errorf(side.n, "a where filter cannot depend on a decision variable: it selects index values before the model is evaluated")
					return nil
				}
			}
			return &Compare{node: node{dep: x.Deps() | y.Deps(), src: e}, Op: e.Op, X: x, Y: y}
		}
	}
	if vars {
		c.errorf(e, "the condition of if is a comparison such as x[1] > abs(x[2]) or k == 1, combined with and, or, not")
		return nil
	}
	c.errorf(e, "a where filter is a comparison such as l != k or train.y[i] == 1, combined with and, or, not")
	return nil
}

// isStringCompare reports whether one side of comparison e is a string.
func isStringCompare(e *ast.Binary) bool {
	_, l := unparen(e.X).(*ast.String)
	_, r := unparen(e.Y).(*ast.String)
	return l || r
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.Paren)
		if !ok {
			return e
		}
		e = p.X
	}
}

// textCompare checks a comparison of a text column's element with a string
// in a where filter, such as D.group[i] == "female", and turns the string
// into the category code the column holds for it (see data.Set.Text), so
// that the filter runs like a numeric one. One side must be a string; it
// returns nil after reporting an error.
func (c *checker) textCompare(e *ast.Binary, sc *scope) Expr {
	str, ok := unparen(e.Y).(*ast.String)
	other := e.X
	if !ok {
		str, other = unparen(e.X).(*ast.String), e.Y
	}
	if _, both := unparen(other).(*ast.String); both {
		c.errorf(e, "a filter compares a data value with a string, not two strings")
		return nil
	}
	if e.Op != "==" && e.Op != "!=" {
		c.errorf(opAt(e), "text can only be compared with == or !=, not %s", e.Op)
		return nil
	}
	c.textOK, c.textCol = true, nil
	x := c.expr(other, sc)
	t, name := c.textCol, c.textName
	c.textOK, c.textCol = false, nil
	if x == nil {
		return nil
	}
	if t == nil {
		c.errorf(other, "%s is compared with a string, but it is not a text column of a data set (e.g. D.group[i] == \"female\")", ExprString(other))
		return nil
	}
	if !x.Shape().IsScalar() {
		c.errorf(other, "a comparison in a filter needs scalars, not a %s", x.Shape())
		return nil
	}
	code := t.Level(str.Value)
	if code == 0 {
		c.errorf(str, "no row of %s has the value %q%s; its values are %s", name, str.Value,
			DidYouMean(str.Value, t.Levels), levelList(t.Levels))
		return nil
	}
	k := &Const{node: node{src: str}, Value: Scalar(float64(code))}
	if other == e.X {
		return &Compare{node: node{dep: x.Deps(), src: e}, Op: e.Op, X: x, Y: k}
	}
	return &Compare{node: node{dep: x.Deps(), src: e}, Op: e.Op, X: k, Y: x}
}

// firstLevel returns a text column's first value, for examples in messages.
func firstLevel(t *data.TextColumn) string {
	if len(t.Levels) == 0 {
		return ""
	}
	return t.Levels[0]
}

// levelList lists up to 10 values of a text column for a message.
func levelList(levels []string) string {
	var q []string
	for i, l := range levels {
		if i == 10 {
			q = append(q, fmt.Sprintf("... (%d in all)", len(levels)))
			break
		}
		if len(l) > 24 {
			l = l[:24] + "..."
		}
		q = append(q, fmt.Sprintf("%q", l))
	}
	return strings.Join(q, ", ")
}
