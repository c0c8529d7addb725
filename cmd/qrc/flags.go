package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/qrc-lang/qrc/check"
)

// assignList is a repeatable NAME=VALUE flag.
type assignList []check.Assign

func (a *assignList) String() string {
	parts := make([]string, len(*a))
	for i, x := range *a {
		parts[i] = x.Name + "=" + x.Value
	}
	return strings.Join(parts, " ")
}

func (a *assignList) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.TrimSpace(value) == "" {
		return fmt.Errorf("want NAME=VALUE, got %q", s)
	}
	*a = append(*a, check.Assign{Name: name, Value: value})
	return nil
}

// parseInterspersed parses flags that may come before, between or after the
// positional arguments (qrc check model.qrc --json), and returns the
// positional arguments. "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// newFlagSet makes a flag set whose errors and usage go to stderr.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	return fs
}
