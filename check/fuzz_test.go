package check_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/lang"
	"github.com/qrc-lang/qrc/modelfile"
)

// FuzzCheck feeds arbitrary model text to the parser and the checker. They
// must not panic (both turn a panic into an "internal error" diagnostic,
// which counts as a failure here), a rejected model must come with an error
// and an accepted one with none. Data paths are relative to ../examples, so
// the examples' data sets load.
func FuzzCheck(f *testing.F) {
	for _, pattern := range []string{
		filepath.Join("..", "examples", "*.qrc"),
		filepath.Join("testdata", "bad", "*.qrc"),
		filepath.Join("testdata", "render", "*.qrc"),
	} {
		paths, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, path := range paths {
			src, err := os.ReadFile(path)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(src)
		}
	}
	name := filepath.Join("..", "examples", "fuzz.qrc")
	f.Fuzz(func(t *testing.T, src []byte) {
		file, errs := lang.Parse(name, src)
		if errs != nil {
			if !errs.HasErrors() {
				t.Fatalf("Parse failed without an error: %v", errs)
			}
			for _, d := range errs {
				if strings.HasPrefix(d.Msg, "internal error:") {
					t.Fatalf("parser panicked: %v", d)
				}
			}
			return
		}
		if file == nil {
			t.Fatal("Parse returned neither a file nor an error")
		}
		m, diags := check.Check(file, check.Options{Dir: filepath.Join("..", "examples"), Loader: modelfile.Data{}})
		for _, d := range diags {
			if strings.HasPrefix(d.Msg, "internal error:") {
				t.Fatalf("checker panicked: %v", d)
			}
			if d.Pos.Filename == name && d.Pos.Line < 1 {
				t.Errorf("diagnostic without a line: %v", d)
			}
		}
		switch {
		case m == nil && !diags.HasErrors():
			t.Fatalf("model rejected without an error: %v", diags)
		case m != nil && diags.HasErrors():
			t.Fatalf("model accepted with errors: %v", diags)
		}
	})
}
