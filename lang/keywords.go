package lang

import "slices"

// keyword is a reserved word; decl marks the words that start a
// declaration.
type keyword struct {
	word string
	decl bool
}

// keywordTable is the one list of the language's reserved words: the
// lexer's Keyword rule, the parser's messages, the size prescan and the
// REPL (statement continuation, completion) all read it.
var keywordTable = []keyword{
	{"data", true}, {"param", true}, {"var", true}, {"func", true}, {"minimize", true}, {"maximize", true},
	{"subject", false}, {"to", false}, {"in", false}, {"where", false}, {"and", false}, {"or", false}, {"not", false},
	{"if", false}, {"then", false}, {"else", false},
}

// Keywords returns the reserved words, declaration words first.
func Keywords() []string {
	out := make([]string, len(keywordTable))
	for i, k := range keywordTable {
		out[i] = k.word
	}
	return out
}

// IsKeyword reports whether word is reserved: it cannot be used as a name.
func IsKeyword(word string) bool { return findKeyword(word) >= 0 }

// IsDeclKeyword reports whether word starts a declaration: data, param,
// var, func, minimize or maximize ("subject to" starts a block of
// constraints).
func IsDeclKeyword(word string) bool {
	i := findKeyword(word)
	return i >= 0 && keywordTable[i].decl
}

// findKeyword returns word's index in keywordTable, or -1.
func findKeyword(word string) int {
	return slices.IndexFunc(keywordTable, func(k keyword) bool { return k.word == word })
}
