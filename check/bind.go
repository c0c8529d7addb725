package check

// Bind returns e with the indices that env binds (the binders of
// comprehensions around e) replaced by their values, as constants: an
// expression that stands alone, as an expanded constraint's instance does,
// so that it can be compiled by itself (autodiff.CompileExprs). A
// comprehension inside e whose range depends on a bound index gets a
// binder of its own. Nodes that depend on no bound index are shared with
// e, and a node shared within e stays shared. Dependencies are recomputed
// by the checker's rules.
func Bind(e Expr, env map[*Binder]int) Expr {
	if len(env) == 0 {
		return e
	}
	b := &binder{env: env, done: map[Expr]Expr{}, binders: map[*Binder]*Binder{}}
	return b.expr(e)
}

type binder struct {
	env     map[*Binder]int
	done    map[Expr]Expr
	binders map[*Binder]*Binder // a comprehension's binder -> its copy
}

func (b *binder) expr(e Expr) Expr {
	if e == nil {
		return nil
	}
	if e.Deps()&DepIndex == 0 {
		if _, ok := e.(*Compr); !ok {
			return e
		}
	}
	if r, ok := b.done[e]; ok {
		return r
	}
	r := fold(b.rebuild(e))
	b.done[e] = r
	return r
}

func (b *binder) rebuild(e Expr) Expr {
	switch x := e.(type) {
	case *IndexVal:
		if v, ok := b.env[x.Binder]; ok {
			return &Const{node: node{src: x.src}, Value: Scalar(float64(v))}
		}
		if c, ok := b.binders[x.Binder]; ok {
			return &IndexVal{node: node{dep: DepIndex, src: x.src}, Binder: c}
		}
		return x
	case *Index:
		r := &Index{node: x.node, X: b.expr(x.X), Idx: make([]Expr, len(x.Idx))}
		r.dep = r.X.Deps()
		for i, ix := range x.Idx {
			r.Idx[i] = b.expr(ix)
			r.dep |= r.Idx[i].Deps()
		}
		return r
	case *Neg:
		r := &Neg{node: x.node, X: b.expr(x.X)}
		r.dep = r.X.Deps()
		return r
	case *Arith:
		r := &Arith{node: x.node, Op: x.Op, X: b.expr(x.X), Y: b.expr(x.Y)}
		r.dep = r.X.Deps() | r.Y.Deps()
		return r
	case *Call:
		r := &Call{node: x.node, Func: x.Func, Args: make([]Expr, len(x.Args)), Params: x.Params}
		r.dep = 0
		for i, a := range x.Args {
			r.Args[i] = b.expr(a)
			r.dep |= r.Args[i].Deps()
		}
		return r
	case *Compr:
		r := &Compr{node: x.node, Op: x.Op, Data: x.Data, Rows: x.Rows, Binders: make([]*Binder, len(x.Binders))}
		for i, bd := range x.Binders {
			if bd.Lo == nil {
				r.Binders[i] = bd
				continue
			}
			lo, hi := b.expr(bd.Lo), b.expr(bd.Hi)
			if lo == bd.Lo && hi == bd.Hi {
				r.Binders[i] = bd
				continue
			}
			c := &Binder{Name: bd.Name, Src: bd.Src, Lo: lo, Hi: hi, Data: bd.Data}
			b.binders[bd] = c
			r.Binders[i] = c
		}
		r.Where = b.expr(x.Where)
		r.Body = b.expr(x.Body)
		r.dep = r.Body.Deps()
		if r.Where != nil {
			r.dep |= r.Where.Deps() &^ DepVar
		}
		if r.dep == x.dep && r.Body == x.Body && r.Where == x.Where && sameBinders(r.Binders, x.Binders) {
			return x
		}
		return r
	case *Compare:
		r := &Compare{node: x.node, Op: x.Op, X: b.expr(x.X), Y: b.expr(x.Y)}
		r.dep = r.X.Deps() | r.Y.Deps()
		return r
	case *Logic:
		r := &Logic{node: x.node, Op: x.Op, X: b.expr(x.X), Y: b.expr(x.Y)}
		r.dep = r.X.Deps()
		if r.Y != nil {
			r.dep |= r.Y.Deps()
		}
		return r
	case *Stack:
		r := &Stack{node: x.node, Elems: make([]Expr, len(x.Elems))}
		r.dep = 0
		for i, el := range x.Elems {
			r.Elems[i] = b.expr(el)
			r.dep |= r.Elems[i].Deps()
		}
		return r
	case *If:
		r := &If{node: x.node, Cond: b.expr(x.Cond), Then: b.expr(x.Then), Else: b.expr(x.Else)}
		r.dep = r.Cond.Deps() | r.Then.Deps() | r.Else.Deps()
		return r
	}
	return e
}

func sameBinders(a, b []*Binder) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
