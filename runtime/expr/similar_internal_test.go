package expr

import (
	"regexp"
	"strings"
	"testing"
)

// FuzzSimilarRegexp: any pattern and escape character translate without a
// panic, and a translation is a regular expression RE2 compiles or refuses
// with an error (never one that matches what the pattern does not allow:
// a pattern without special characters matches only itself).
func FuzzSimilarRegexp(f *testing.F) {
	for _, s := range []string{"abc", "a%", "_b_", "(a|x)(b|y)c", "a{2}b", "[a-c]", "[^a-c]", "[[:UPPER:]]", "a!%", "[a!]]", "a]", "[abc", "a\\b", "a$", "[[:bogus:]]", "a*+", "(?=a)"} {
		f.Add(s, "!")
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, pattern, escape string) {
		esc := rune(-1)
		for _, r := range escape {
			esc = r
			break
		}
		src, err := similarRegexp(pattern, esc)
		if err != nil {
			return
		}
		re, err := regexp.Compile(`\A(?:` + src + `)\z`)
		if err != nil {
			return
		}
		plain := true
		for _, r := range pattern {
			if r == esc || r == '.' || r == '\\' || r == '$' || strings.ContainsRune(similarSpecials, r) {
				plain = false
			}
		}
		if plain && !re.MatchString(pattern) {
			t.Errorf("pattern %q without special characters does not match itself (regexp %q)", pattern, src)
		}
	})
}
