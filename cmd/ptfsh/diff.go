package main

// diffLines walks a longest common subsequence of the lines a and b and
// calls emit for each line in order: op ' ' for a line of both, '-' for
// one of a only, '+' for one of b only (a line of a before the b line
// that replaces it).
func diffLines(a, b []string, emit func(op byte, line string)) {
	// lcs[i][j]: the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int32, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			emit(' ', a[i])
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			emit('-', a[i])
			i++
		default:
			emit('+', b[j])
			j++
		}
	}
}
