package expr

import (
	"testing"
)

// FuzzParseJSON: the JSON reader never panics, and what it reads it
// writes back as JSON that reads the same.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.50, -0.0, 1e3, "x\u00e9\n"], "b": {"c": null}}`, `[]`, ` 1 2`, `01`, `"\ud83d\ude00"`, `{"a":1,"a":2}`, `[1,]`, `tru`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseJSON(s)
		if err != nil {
			return
		}
		out := string(appendJSONText(nil, v))
		v2, err := parseJSON(out)
		if err != nil {
			t.Fatalf("%q read as %q, which does not read: %v", s, out, err)
		}
		if out2 := string(appendJSONText(nil, v2)); out2 != out {
			t.Fatalf("%q: written %q, then %q", s, out, out2)
		}
	})
}

// FuzzJSONPath: compiling and following any path over any document never
// panics.
func FuzzJSONPath(f *testing.F) {
	for _, p := range []string{"$.a", "lax $.a[*].b", "strict $['a b'][0]", "$..b", "$.a[-1]", "$.a[0:2]", "$.a[0,2]", "$.*", "$.a.length()", "$[", "$.a[?(@.b)]", "$['a]"} {
		f.Add(p, `{"a": [{"b": 1}, {"b": [2, 3]}, 4], "a b": [5]}`)
	}
	f.Fuzz(func(t *testing.T, path, doc string) {
		p, err := compileJSONPath(path)
		if err != nil {
			return
		}
		d, err := parseJSON(doc)
		if err != nil {
			return
		}
		_, _ = p.eval(d)
	})
}
