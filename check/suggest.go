package check

// suggest returns the candidate closest to name by edit distance, or "" when
// none is close enough to be a plausible typo.
// Ties go to the alphabetically first candidate; candidates is not
// modified.
func suggest(name string, candidates []string) string {
	limit := min(len(name)/3+1, 3)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if c == name || c == "" || c[0] == '_' {
			continue
		}
		if d := editDistance(name, c); d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	return best
}

// DidYouMean formats the candidate closest to name by edit distance as
// ` (did you mean "x"?)`, or "" when none is a plausible typo.
func DidYouMean(name string, candidates []string) string {
	if s := suggest(name, candidates); s != "" {
		return ` (did you mean "` + s + `"?)`
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b, counting a
// swap of two neighbouring characters as one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
