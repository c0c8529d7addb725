package weakconvex

import (
	"testing"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/modelfile"
)

func BenchmarkAnalyzeNPCPendigits(b *testing.B) {
	m, _, _ := modelfile.Load("../examples/npc.qrc", check.Options{Data: []check.Assign{{Name: "train", Value: pendigits}}})
	if m == nil {
		b.Skip("no data")
	}
	for i := 0; i < b.N; i++ {
		Analyze(m)
	}
}
