package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/solvecmd"
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
// positional arguments (solvecmd.ParseInterspersed).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	return solvecmd.ParseInterspersed(fs, args, "qrc "+fs.Name(), "qrc help "+fs.Name())
}

// newFlagSet makes a flag set whose errors and usage go to stderr.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	return fs
}

// modelFlagsUsage documents the flags of modelFlags in every command's help.
const modelFlagsUsage = `  --set NAME=EXPR    override parameter NAME with the expression EXPR
                     (repeatable), e.g. --set r=3 --set lambda=0.5
  --data NAME=PATH   read data set NAME from PATH instead of the model's file,
                     with the same loader (repeatable), e.g.
                     --data train=../shared/data/pendigits
`

// register adds --set and --data to fs.
func (m *modelFlags) register(fs *flag.FlagSet) {
	fs.Var(&m.set, "set", "override a parameter: NAME=EXPR")
	fs.Var(&m.data, "data", "replace a data file: NAME=PATH")
}

// modelFile parses the command line of command name, whose only argument is
// the model file; on a bad command line it prints why and the usage.
func modelFile(fs *flag.FlagSet, name string, args []string, stderr io.Writer) (string, bool) {
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return "", false
	}
	if len(files) != 1 {
		fmt.Fprintf(stderr, "qrc %s: want one model file, got %d; \"qrc help %s\" shows the usage\n", name, len(files), name)
		return "", false
	}
	return files[0], true
}
