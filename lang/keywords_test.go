package lang

import "testing"

// Every keyword is refused as a name, and only keywords are.
func TestKeywordsAreReserved(t *testing.T) {
	for _, k := range Keywords() {
		if _, errs := Parse("m.qrc", []byte("param "+k+" = 1\n")); errs == nil {
			t.Errorf("param %s = 1 parsed; %s is a keyword", k, k)
		}
	}
	if _, errs := Parse("m.qrc", []byte("param datum = 1\n")); errs != nil {
		t.Errorf("param datum = 1: %v", errs)
	}
	for _, w := range []string{"data", "minimize", "maximize"} {
		if !IsDeclKeyword(w) {
			t.Errorf("%s starts a declaration", w)
		}
	}
	for _, w := range []string{"subject", "in", "x"} {
		if IsDeclKeyword(w) {
			t.Errorf("%s does not start a declaration", w)
		}
	}
}
