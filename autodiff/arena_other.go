//go:build !linux

package autodiff

// allocateArena returns n zeroed float64s for p's registers.
func allocateArena(p *Program, n int) []float64 { return make([]float64, n) }
