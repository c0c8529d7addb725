//go:build race

package sparseqp

// raceEnabled: the race detector slows the solver some twentyfold, so the
// largest test skips under it.
const raceEnabled = true
