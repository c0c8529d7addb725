package stdlib

// kinkPoints are the points where the one-argument built-ins that are not
// smooth have their kink (in their first argument); each is continuously
// differentiable everywhere else on its domain.
var kinkPoints = map[string]float64{"abs": 0, "pos": 0, "sqrt": 0, "hinge": 1, "mcp": 0, "scad": 0}

// KinkPoint returns the point where the built-in name, a function of one
// argument (and constant parameters) that is not smooth, has its kink in
// that argument, and whether it has a single such point: abs, pos, sqrt,
// mcp and scad at 0, hinge at 1. The n-ary max and min, the norms and the
// smooth built-ins have none.
func KinkPoint(name string) (float64, bool) {
	p, ok := kinkPoints[name]
	return p, ok
}
