package solvecmd

import (
	"io"
	"regexp"
	"strings"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/diag"
)

// optionFlags maps the fields of qrc.Options that the library's messages
// name (Options.Oracle) to the flags of qrc solve that set them (oracle).
var optionFlags = map[string]string{
	"Method": "method", "Oracle": "oracle", "RhoHat": "rho-hat", "Rho": "rho", "Eps": "eps",
	"Inner": "inner", "Outer": "outer", "TimeLimit": "time-limit", "Pick": "pick", "Seed": "seed",
	"V": "v", "Alpha": "alpha", "SampleStart": "sample", "SampleGrowth": "sample-growth",
	"SampleRounds": "sample-rounds", "Batch": "batch", "AllowBiased": "allow-biased",
	"Theory": "theory", "Sigma": "sigma", "Restarts": "restarts", "Starts": "starts", "Start": "start",
}

// optionValues maps the values the library's messages give an option to
// the flag's value where they differ (a random start is point.Random in
// Go, --start random on the command line).
var optionValues = map[string]string{"Start = point.Random": "random"}

// otherNames maps the library's names of what is not an option to the
// commands and flags that do the same (the report's JSON: --json or
// --out; the analysis: qrc check --explain).
var otherNames = strings.NewReplacer("Report.WriteJSON", "--json or --out",
	"weakconvex.Analyze explains it", "qrc check --explain shows it",
	check.EvalNote, "an evaluation (:eval, qrc eval --metric)")

// sourceFlags maps the file names the checker gives the overrides of a
// parameter (check.SetSourceName) and of a data set's file
// (check.DataSourceName), without the name, to the flags that give them.
var sourceFlags = []struct{ lib, flag string }{
	{check.SetSourceName(""), "--set "},
	{check.DataSourceName(""), "--data "},
}

// sourceRef is such a file name in a message's text: at its start, or
// after a space or a parenthesis (never inside quotes, where it would be
// a name the user gave).
var sourceRef = regexp.MustCompile(`(^|[\s(])(` + regexp.QuoteMeta(sourceFlags[0].lib) + `|` + regexp.QuoteMeta(sourceFlags[1].lib) + `)`)

// dataFileRef is the checker's error about a data file given with
// Options.Data that cannot be loaded (check.DataFileNote), whose name the
// command line repeats: (from --data D).
var dataFileRef = regexp.MustCompile(`(cannot load data set "([^"\\]*)")` + regexp.QuoteMeta(check.DataFileNote))

// optionRef is an option as the library's messages name it: Options.Name,
// with its value after " = " when the message gives one.
var optionRef = regexp.MustCompile(`Options\.([A-Z][A-Za-z]*)(?: = ([^\s,;()]+))?`)

// ToFlags rewrites a message of the library (an error, a note, a verdict)
// for the command line: each option it names (Options.Outer = 400)
// becomes the flag that sets it (--outer 400). A name without a flag is
// left as it is.
func ToFlags(msg string) string {
	msg = optionRef.ReplaceAllStringFunc(msg, func(ref string) string {
		m := optionRef.FindStringSubmatch(ref)
		flag, ok := optionFlags[m[1]]
		if !ok {
			return ref
		}
		if m[2] == "" {
			return "--" + flag
		}
		value := m[2]
		if v, ok := optionValues[m[1]+" = "+value]; ok {
			value = v
		}
		return "--" + flag + " " + value
	})
	msg = dataFileRef.ReplaceAllString(msg, "$1 (from --data $2)")
	msg = sourceRef.ReplaceAllStringFunc(msg, func(ref string) string {
		for _, s := range sourceFlags {
			if i := strings.Index(ref, s.lib); i >= 0 {
				return ref[:i] + s.flag
			}
		}
		return ref
	})
	return otherNames.Replace(msg)
}

// SourceToFlag returns a position's file name as the command line shows
// it: the value of an overridden parameter (check.SetSourceName("r")) as
// the flag that gave it (--set r), the file of a data set
// (check.DataSourceName("D")) as --data D; other names stay.
func SourceToFlag(name string) string {
	for _, s := range sourceFlags {
		if rest, ok := strings.CutPrefix(name, s.lib); ok {
			return s.flag + rest
		}
	}
	return name
}

// DiagsToFlags returns copies of the checker's diagnostics as the command
// line shows them: their positions' file names by SourceToFlag, their
// messages by ToFlags.
func DiagsToFlags(l diag.List) diag.List {
	if l == nil {
		return nil
	}
	out := make(diag.List, len(l))
	for i, d := range l {
		out[i] = DiagToFlags(d)
	}
	return out
}

// DiagToFlags returns a copy of one diagnostic as DiagsToFlags does.
func DiagToFlags(d *diag.Diagnostic) *diag.Diagnostic {
	c := *d
	c.Pos.Filename = SourceToFlag(c.Pos.Filename)
	c.End.Filename = SourceToFlag(c.End.Filename)
	c.Msg = ToFlags(c.Msg)
	return &c
}

// SourcesToFlags returns the sources with the file names the command line
// shows (SourceToFlag), so that the diagnostics of DiagsToFlags find
// their source lines.
func SourcesToFlags(sources check.Sources) check.Sources {
	out := make(check.Sources, len(sources))
	for name, src := range sources {
		out[SourceToFlag(name)] = src
	}
	return out
}

// PrintDiags writes the checker's diagnostics to w as the qrc command
// shows them (DiagsToFlags), each with its source line and a caret.
func PrintDiags(w io.Writer, l diag.List, sources check.Sources) {
	DiagsToFlags(l).Print(w, SourcesToFlags(sources))
}
