//go:build !race

package sparseqp

const raceEnabled = false
