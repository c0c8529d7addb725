package repl

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/qrc-lang/qrc/lang"
	"github.com/qrc-lang/qrc/solvecmd"
	"github.com/qrc-lang/qrc/stdlib"
)

// keywords are the language's keywords (but maximize, which the checker
// refuses) and the REPL's statement words.
func keywords() []string {
	out := slices.DeleteFunc(lang.Keywords(), func(k string) bool { return k == "maximize" })
	return append(out, "let", "drop")
}

// builtinNames are the loaders, domains and the word rows.
var builtinNames = []string{"libsvm", "csv", "parquet", "box", "ball", "simplex", "l1ball", "nonneg", "inf", "rows"}

// Complete returns the completions of the word before the cursor, in the
// form of liner's WordCompleter: line is the line being edited, pos the
// cursor (in runes); each completion replaces the word, between head and
// tail. It completes command names after ':', solver flags after :solve,
// option names after :set, file names after :load and :save, fields after
// a data set's name and a dot, and otherwise the model's names, keywords
// and built-ins.
func (s *Session) Complete(line string, pos int) (head string, completions []string, tail string) {
	runes := []rune(line)
	pos = max(0, min(pos, len(runes)))
	before, tail := string(runes[:pos]), string(runes[pos:])
	trimmed := strings.TrimLeft(before, " \t")
	if !s.in.Pending() && strings.HasPrefix(trimmed, ":") {
		return s.completeCommand(before, trimmed, tail)
	}
	word := trailingWord(before)
	head = before[:len(before)-len(word)]
	var cands []string
	if strings.HasSuffix(head, ".") {
		cands = s.fields(trailingWord(head[:len(head)-1]))
	} else {
		cands = append(cands, s.names("")...)
		cands = append(cands, keywords()...)
		cands = append(cands, stdlib.Names()...)
		cands = append(cands, stdlib.Comprehensions()...)
		cands = append(cands, builtinNames...)
	}
	return head, matching(cands, word), tail
}

// completeCommand completes a command line.
func (s *Session) completeCommand(before, trimmed, tail string) (string, []string, string) {
	name, rest, hasArg := strings.Cut(trimmed[1:], " ")
	if !hasArg {
		var cands []string
		for _, c := range commandNames() {
			cands = append(cands, ":"+c)
		}
		return before[:len(before)-len(trimmed)], matching(cands, trimmed), tail
	}
	word := rest
	if i := strings.LastIndexAny(rest, " \t"); i >= 0 {
		word = rest[i+1:]
	}
	head := before[:len(before)-len(word)]
	var cands []string
	switch c := lookupCommand(name); {
	case c == nil:
	case c.name == "load" || c.name == "save":
		return head, files(word, c.name == "load"), tail
	case c.name == "help":
		cands = append(commandNames(), "let", "drop")
	case c.name == "set":
		for _, f := range solvecmd.FlagNames() {
			cands = append(cands, f+"=")
		}
	case c.name == "solve":
		cands = []string{"--cold"}
		for _, f := range solvecmd.FlagNames() {
			cands = append(cands, "--"+f)
		}
	case c.name == "reset":
		cands = []string{"point"}
	case c.name == "show" || c.name == "eval" || c.name == "grad":
		w := trailingWord(word)
		h := before[:len(before)-len(w)]
		if strings.HasSuffix(h, ".") {
			return h, matching(s.fields(trailingWord(h[:len(h)-1])), w), tail
		}
		cands = append(cands, s.names("")...)
		if c.name == "show" {
			cands = append(cands, "objective")
		} else {
			cands = append(cands, stdlib.Names()...)
			cands = append(cands, stdlib.Comprehensions()...)
		}
		return h, matching(cands, w), tail
	}
	return head, matching(cands, word), tail
}

// fields lists the fields of data set name: n, d, X, y and its columns.
func (s *Session) fields(name string) []string {
	if s.model == nil {
		return nil
	}
	for _, d := range s.model.Data {
		if d.Name != name {
			continue
		}
		out := []string{"n", "d", "X"}
		if d.Set.Y != nil {
			out = append(out, "y")
		}
		for c := range d.Set.Columns {
			out = append(out, c)
		}
		return out
	}
	return nil
}

// trailingWord returns the identifier that s ends with ("" if none).
func trailingWord(s string) string {
	i := len(s)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if !isIdentRune(r) {
			break
		}
		i -= size
	}
	return s[i:]
}

// matching returns the candidates that start with prefix, sorted, without
// duplicates.
func matching(cands []string, prefix string) []string {
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// files completes a file name: directories (with a slash) and, for :load,
// only .qrc files.
func files(prefix string, qrcOnly bool) []string {
	dir, base := filepath.Split(prefix)
	entries, err := os.ReadDir(filepath.Join(".", dir))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		switch {
		case e.IsDir():
			out = append(out, dir+name+"/")
		case !qrcOnly || strings.HasSuffix(name, ".qrc"):
			out = append(out, dir+name)
		}
	}
	sort.Strings(out)
	return out
}
