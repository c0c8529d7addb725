package ast

// Inspect traverses the tree rooted at n in depth-first order, calling f for
// each node before its children. When f returns false, the children of that
// node are skipped. Comments are not visited.
func Inspect(n Node, f func(Node) bool) {
	if n == nil || !f(n) {
		return
	}
	switch n := n.(type) {
	case *File:
		for _, d := range n.Decls {
			Inspect(d, f)
		}
	case *DataDecl:
		Inspect(n.Name, f)
		Inspect(n.Source, f)
	case *ParamDecl:
		Inspect(n.Name, f)
		Inspect(n.Value, f)
	case *VarDecl:
		Inspect(n.Name, f)
		for _, d := range n.Dims {
			Inspect(d, f)
		}
		inspectOpt(n.Domain, f)
		inspectOpt(n.Start, f)
	case *FuncDecl:
		Inspect(n.Name, f)
		for _, p := range n.Params {
			Inspect(p, f)
		}
		Inspect(n.Body, f)
	case *Objective:
		Inspect(n.X, f)
	case *SubjectTo:
		for _, c := range n.Constraints {
			Inspect(c, f)
		}
	case *Constraint:
		Inspect(n.Name, f)
		for _, b := range n.Binders {
			Inspect(b, f)
		}
		Inspect(n.LHS, f)
		Inspect(n.RHS, f)
	case *Vector:
		for _, e := range n.Elems {
			Inspect(e, f)
		}
	case *Paren:
		Inspect(n.X, f)
	case *Unary:
		Inspect(n.X, f)
	case *Binary:
		Inspect(n.X, f)
		Inspect(n.Y, f)
	case *Arg:
		if n.Name != nil {
			Inspect(n.Name, f)
		}
		Inspect(n.Value, f)
	case *Call:
		Inspect(n.Fun, f)
		for _, a := range n.Args {
			Inspect(a, f)
		}
	case *Index:
		Inspect(n.X, f)
		for _, i := range n.Indices {
			Inspect(i, f)
		}
	case *Member:
		Inspect(n.X, f)
		Inspect(n.Name, f)
	case *Range:
		Inspect(n.Lo, f)
		Inspect(n.Hi, f)
	case *Binder:
		Inspect(n.Name, f)
		Inspect(n.Set, f)
	case *If:
		Inspect(n.Cond, f)
		Inspect(n.Then, f)
		Inspect(n.Else, f)
	case *Comprehension:
		Inspect(n.Op, f)
		for _, b := range n.Binders {
			Inspect(b, f)
		}
		inspectOpt(n.Where, f)
		Inspect(n.Body, f)
	}
}

// inspectOpt inspects an optional expression.
func inspectOpt(e Expr, f func(Node) bool) {
	if e != nil {
		Inspect(e, f)
	}
}

// Pos returns the position of the file's first declaration.
func (x *File) Pos() Pos {
	if len(x.Decls) > 0 {
		return x.Decls[0].Pos()
	}
	return Pos{Filename: x.Name, Line: 1, Column: 1}
}

// End returns the end of the file's last declaration.
func (x *File) End() Pos {
	if len(x.Decls) > 0 {
		return x.Decls[len(x.Decls)-1].End()
	}
	return x.Pos()
}
