package data

import (
	"strconv"
	"unicode/utf8"
)

// maxToken is the most bytes of file content an error message quotes.
const maxToken = 24

// quote returns a short, sanitised, quoted copy of b for an error message:
// at most maxToken bytes of it, cut at a character boundary and marked with
// "..." when cut, with control and invalid bytes escaped. Messages never echo
// more of a file than this, so that a model pointed at a private file does
// not print its contents.
func quote(b []byte) string {
	cut := false
	if len(b) > maxToken {
		n := maxToken
		for n > 0 && !utf8.RuneStart(b[n]) {
			n--
		}
		b, cut = b[:n], true
	}
	q := strconv.Quote(string(b))
	if cut {
		q = q[:len(q)-1] + `..."`
	}
	return q
}

// quoteString is quote for a string.
func quoteString(s string) string { return quote([]byte(s)) }
