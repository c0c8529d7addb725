// Package shareddata lets tests find the real data sets that are not
// shipped with the repository (../shared/data beside the clone; README.md,
// section "Data sets", says where to get them). A test that needs one calls
// Require, which skips it with a reason when the file is absent; a package
// whose tests call Require runs them through Main, which prints one summary
// line of what was skipped, so a skip is never silent:
//
//	func TestMain(m *testing.M) { os.Exit(shareddata.Main(m)) }
//
// go test shows a passing package's output only with -v; .ci/run prints
// every package's summary line.
package shareddata

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Dir is the data directory relative to the repository root.
const Dir = "../shared/data"

var (
	mu      sync.Mutex
	skipped int
	missing = map[string]bool{}
)

// Path returns the absolute path of data set name (a file in Dir), found
// from the repository root (the nearest directory above the working
// directory with a go.mod). It does not check that the file exists.
func Path(name string) string {
	dir, err := os.Getwd()
	if err != nil {
		return filepath.Join(Dir, name)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, filepath.FromSlash(Dir), name)
		}
		if filepath.Dir(d) == d {
			return filepath.Join(dir, filepath.FromSlash(Dir), name)
		}
	}
}

// Require returns the absolute path of data set name, or skips tb (a test
// or benchmark) with the reason when the file is absent and counts the skip
// for Main's summary.
func Require(tb testing.TB, name string) string {
	tb.Helper()
	path := Path(name)
	if _, err := os.Stat(path); err != nil {
		mu.Lock()
		skipped++
		missing[name] = true
		mu.Unlock()
		tb.Skipf("%s/%s is absent (the real data sets are not shipped; README.md, section \"Data sets\", says where to get them)", Dir, name)
	}
	return path
}

// Summary is the line Main prints: how many tests skipped for which absent
// data sets, or "" when none did.
func Summary() string {
	mu.Lock()
	defer mu.Unlock()
	if skipped == 0 {
		return ""
	}
	names := make([]string, 0, len(missing))
	for n := range missing {
		names = append(names, n)
	}
	slices.Sort(names)
	return fmt.Sprintf("shareddata: %d test(s) skipped: %s/{%s} absent (see README.md, section \"Data sets\")",
		skipped, Dir, strings.Join(names, ","))
}

// Main runs the tests and then prints Summary (if any test skipped) on
// standard output; it returns m.Run's exit code.
func Main(m *testing.M) int {
	code := m.Run()
	if s := Summary(); s != "" {
		fmt.Println(s)
	}
	return code
}
