package check

import (
	"fmt"

	"github.com/qrc-lang/qrc/stdlib"
)

// Kink is a subexpression that makes a model nonsmooth: a built-in whose
// derivative is not continuous (abs, pos, hinge, max, norm1, ...), a max or
// min comprehension over terms that depend on the variables, or a power
// that is not continuously differentiable.
type Kink struct {
	Expr   Expr
	Reason string
}

// Smooth reports whether every function of m (the objective and each
// expanded constraint) is continuously differentiable in the decision
// variables wherever it is defined, by the recorded properties of the
// built-ins it uses. When it is not, the first Kink found says where. The
// solver's smooth oracle needs a smooth model; the bundle oracle does not.
func Smooth(m *Model) (bool, *Kink) {
	var exprs []Expr
	if m.Objective != nil {
		exprs = append(exprs, m.Objective.Expr)
	}
	for _, c := range m.Constraints {
		exprs = append(exprs, c.F)
	}
	for _, e := range exprs {
		if k := firstKink(e); k != nil {
			return false, k
		}
	}
	return true, nil
}

// firstKink returns the first nonsmooth subexpression of e that depends on
// the variables, or nil.
func firstKink(e Expr) *Kink {
	var found *Kink
	seen := map[Expr]bool{}
	Walk(e, func(x Expr) bool {
		if found != nil || seen[x] || x.Deps()&DepVar == 0 {
			return false
		}
		seen[x] = true
		switch x := x.(type) {
		case *Call:
			if !x.Func.PropsFor(x.Params).Smooth {
				found = &Kink{x, fmt.Sprintf("%s is not differentiable everywhere", x.Func.Name)}
			}
		case *Compr:
			if x.Op == "max" || x.Op == "min" {
				found = &Kink{x, fmt.Sprintf("a %s over terms that depend on the variables is not differentiable where they tie", x.Op)}
			}
		case *Arith:
			if x.Op == "^" {
				if c, ok := x.Y.(*Const); ok && len(c.Value.Data) == 1 && !stdlib.PowProps(c.Value.Data[0]).Smooth {
					found = &Kink{x, fmt.Sprintf("z^%v is not differentiable at 0", c.Value.Data[0])}
				}
			}
		}
		return found == nil
	})
	return found
}
