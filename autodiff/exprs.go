package autodiff

import (
	"fmt"

	"github.com/qrc-lang/qrc/check"
)

// CompileExprs compiles scalar expressions of a model's variables into a
// program whose functions are exprs, in order, named by names; none of them
// is the objective. nvars is the model's NumScalars. The REPL compiles the
// expressions of :eval and :grad (checked with check.CheckExpr, a
// non-scalar one split with check.Elements) this way, to evaluate and
// differentiate them at a point exactly as the solver would.
func CompileExprs(nvars int, exprs []check.Expr, names []string) (*Program, error) {
	if len(names) != len(exprs) {
		return nil, fmt.Errorf("autodiff: CompileExprs with %d expressions and %d names", len(exprs), len(names))
	}
	c := newCompiler(nil, Options{})
	p := &Program{nvars: nvars, tune: c.tune}
	root := c.newScope(nil)
	for i, e := range exprs {
		if !e.Shape().IsScalar() {
			return nil, fmt.Errorf("autodiff: CompileExprs: %s is a %s, not a scalar", names[i], e.Shape())
		}
		p.funcs = append(p.funcs, Function{Name: names[i], Pos: e.Src().Pos()})
		p.outs = append(p.outs, c.expr(e, root))
	}
	return p.finish(c, Options{})
}
