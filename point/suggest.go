package point

// didYouMean formats the candidate closest to name by edit distance as
// ` (did you mean "x"?)`, or "" when none is a plausible typo.
func didYouMean(name string, candidates []string) string {
	best, bestD := "", min(len(name)/3+1, 3)
	for _, c := range candidates {
		if d := editDistance(name, c); d <= bestD && (best == "" || d < editDistance(name, best) || (d == editDistance(name, best) && c < best)) {
			best = c
		}
	}
	if best == "" {
		return ""
	}
	return ` (did you mean "` + best + `"?)`
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
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
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
