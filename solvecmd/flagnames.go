package solvecmd

import (
	"regexp"
	"strings"
)

// optionFlags maps the fields of qrc.Options that the library's messages
// name (Options.Oracle) to the flags of qrc solve that set them (oracle).
var optionFlags = map[string]string{
	"Method": "method", "Oracle": "oracle", "RhoHat": "rho-hat", "Rho": "rho", "Eps": "eps",
	"Inner": "inner", "Outer": "outer", "TimeLimit": "time-limit", "Pick": "pick", "Seed": "seed",
	"V": "v", "Alpha": "alpha", "SampleStart": "sample", "SampleGrowth": "sample-growth",
	"SampleRounds": "sample-rounds", "Batch": "batch", "AllowBiased": "allow-biased",
	"Theory": "theory", "Sigma": "sigma", "Restarts": "restarts", "Start": "start",
}

// optionValues maps the values the library's messages give an option to
// the flag's value where they differ (a random start is point.Random in
// Go, --start random on the command line).
var optionValues = map[string]string{"Start = point.Random": "random"}

// otherNames maps the library's names of what is not an option to the
// commands and flags that do the same (the report's JSON: --json or
// --out; the analysis: qrc check --explain).
var otherNames = strings.NewReplacer("Report.WriteJSON", "--json or --out",
	"weakconvex.Analyze explains it", "qrc check --explain shows it")

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
	return otherNames.Replace(msg)
}
