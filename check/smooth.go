package check

import (
	"fmt"
	"strconv"

	"github.com/qrc-lang/qrc/stdlib"
)

// Kink is a subexpression that makes a model nonsmooth: a built-in whose
// derivative is not continuous (abs, pos, hinge, max, norm1, ...), a max or
// min comprehension over terms that depend on the variables, a power
// that is not continuously differentiable, or a conditional (if) whose
// condition depends on the variables.
type Kink struct {
	Expr   Expr
	Atom   string // the operation: the built-in's name, "max(...)", "^0.5"
	Reason string
}

// Smooth reports whether every function of m (the objective and each
// expanded constraint) is continuously differentiable in the decision
// variables wherever it is defined, by the recorded properties of the
// built-ins it uses. When it is not, the first Kink found says where. The
// solver's smooth oracle needs a smooth model; the bundle oracle does not.
func Smooth(m *Model) (bool, *Kink) {
	if ks := Kinks(m); len(ks) > 0 {
		return false, &ks[0]
	}
	return true, nil
}

// Kinks lists the nonsmooth subexpressions of m's functions that depend on
// the decision variables, in the order of the functions and, within one,
// of a depth-first walk (each shared subexpression once).
func Kinks(m *Model) []Kink {
	var exprs []Expr
	if m.Objective != nil {
		exprs = append(exprs, m.Objective.Expr)
	}
	for _, c := range m.Constraints {
		exprs = append(exprs, c.F)
	}
	var out []Kink
	seen := map[Expr]bool{}
	for _, e := range exprs {
		Walk(e, func(x Expr) bool {
			if seen[x] || x.Deps()&DepVar == 0 {
				return false
			}
			seen[x] = true
			if k, ok := kinkAt(x); ok {
				out = append(out, k)
			}
			return true
		})
	}
	return out
}

// kinkAt reports whether x itself (not its operands) is nonsmooth.
func kinkAt(x Expr) (Kink, bool) {
	switch x := x.(type) {
	case *Call:
		if !x.Func.PropsFor(x.Params).Smooth {
			return Kink{x, x.Func.Name, fmt.Sprintf("%s is not differentiable everywhere", x.Func.Name)}, true
		}
	case *Compr:
		if x.Op == "max" || x.Op == "min" {
			return Kink{x, x.Op + "(...)", fmt.Sprintf("a %s over terms that depend on the variables is not differentiable where they tie", x.Op)}, true
		}
	case *If:
		if x.Cond.Deps()&DepVar != 0 {
			return Kink{x, "if", "a conditional whose condition depends on the variables is not differentiable where the condition changes (nor continuous, unless its pieces meet there)"}, true
		}
	case *Arith:
		if c, ok := x.Y.(*Const); ok && x.Op == "^" && len(c.Value.Data) == 1 && !stdlib.PowProps(c.Value.Data[0]).Smooth {
			p := strconv.FormatFloat(c.Value.Data[0], 'g', 6, 64)
			return Kink{x, "^" + p, fmt.Sprintf("z^%s is not differentiable at 0", p)}, true
		}
	}
	return Kink{}, false
}
