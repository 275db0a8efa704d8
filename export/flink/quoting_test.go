package flink_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/export/flink"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// craftedNames are SQL names of functions that try to break out of the
// code they are written into.
var craftedNames = []string{
	"f`; DROP TABLE x; --",
	"it's'); DROP TABLE y; --",
	"g\"); System.exit(1); // \\u000a /*",
}

// lineBreakNames try with line breaks too. Flink's quoted names cannot
// hold them, so Check refuses them; the generated Java is safe anyway.
var lineBreakNames = []string{
	"it's\n'; DROP TABLE y; --",
	"g\"); System.exit(1); //\r\n\\u000a/*",
}

// TestCheck_names: names Flink would refuse are refused before anything
// is written, with Flink's message for argument and state names.
func TestCheck_names(t *testing.T) {
	for _, name := range lineBreakNames {
		def := load(t, name, "", `({ output: "STRING", args: [{ name: "input", traits: ["ROW_SEMANTIC_TABLE"] }], eval() {} })`)
		err := flink.Check(def, "g.js")
		if err == nil || !strings.Contains(err.Error(), "cannot be written in Flink SQL: its quoted names hold no line breaks") {
			t.Errorf("Check(%q) = %v", name, err)
		}
	}
	for _, tc := range []struct{ decl, want string }{
		{`({ output: "STRING", args: [{ name: "in\"put", traits: ["ROW_SEMANTIC_TABLE"] }], eval() {} })`,
			`g.js: export flink: Invalid argument name 'in"put'. An argument must follow the pattern [a-zA-Z_$][a-zA-Z_$0-9]*.`},
		{`({ output: "STRING", args: [{ name: "input", traits: ["ROW_SEMANTIC_TABLE"] }, { name: "1st", type: "INT" }], eval() {} })`,
			`Invalid argument name '1st'`},
		{`({ output: "STRING", args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }], state: { "a b": { default: {} } }, eval() {} })`,
			`g.js: export flink: Invalid state name 'a b'. A state entry must follow the pattern [a-zA-Z_$][a-zA-Z_$0-9]*.`},
	} {
		def := load(t, "F", "", tc.decl)
		if err := flink.Check(def, "g.js"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Check: %v, want %q", err, tc.want)
		}
	}
	def := load(t, "F", "", `({ output: "STRING", args: [{ name: "$in_1", traits: ["SET_SEMANTIC_TABLE"] }], state: { _s$2: { default: {} } }, eval() {} })`)
	if err := flink.Check(def, "g.js"); err != nil {
		t.Errorf("Check: %v", err)
	}
}

// TestWrite_craftedNames: register.sql holds one statement, which
// registers the very name; the class name is a plain Java identifier.
func TestWrite_craftedNames(t *testing.T) {
	for _, name := range craftedNames {
		def := load(t, name, "", `({ output: "STRING", args: [{ name: "input", traits: ["ROW_SEMANTIC_TABLE"] }], eval() {} })`)
		dir := t.TempDir()
		if err := flink.Write(dir, flink.Project{Def: def, File: "g.js", Script: "({})\n"}); err != nil {
			t.Fatal(err)
		}
		reg, err := os.ReadFile(filepath.Join(dir, "src/main/resources/ptfsh/register.sql"))
		if err != nil {
			t.Fatal(err)
		}
		pieces, err := sqlmini.Split("register.sql", string(reg))
		if err != nil || len(pieces) != 1 {
			t.Fatalf("%q: register.sql %q is %d statements (%v)", name, reg, len(pieces), err)
		}
		st, err := sqlmini.ParseStatement("register.sql", pieces[0].Text)
		if err != nil {
			t.Fatalf("%q: register.sql %q: %v", name, reg, err)
		}
		cls := flink.ClassName(name)
		if !regexp.MustCompile(`^[A-Z][A-Za-z0-9_]*$`).MatchString(cls) {
			t.Errorf("%q: class name %q", name, cls)
		}
		f := st.Create.Function
		if got := string(f.Name.Value); got != name {
			t.Errorf("register.sql registers %q, want %q", got, name)
		}
		if got := string(*f.Path); got != "ptfsh.flink."+cls {
			t.Errorf("register.sql names the class %q, want ptfsh.flink.%s", got, cls)
		}
		if _, err := os.Stat(filepath.Join(dir, "src/main/java/ptfsh/flink", cls+".java")); err != nil {
			t.Error(err)
		}
	}
}

// TestClassSource_craftedNames: names of the function, its file, its
// arguments, state entries and output fields that hold quotes, line
// breaks, comment ends and \u escapes stay inside the string literals
// and comments of the Java source, and the literals hold them exactly.
// (Check refuses such argument and state names, as Flink does; the
// source is safe without it.)
func TestClassSource_craftedNames(t *testing.T) {
	args := []string{`input"; System.exit(1); //`, "n\nSystem.exit(2);\x01"}
	state := `s"\u000a System.exit(3);`
	output := "ROW<" + quoteIdent("x`y\"z") + " INT, " + quoteIdent("a*/b") + " STRING>"
	decl := fmt.Sprintf(`({ output: %s,
		args: [{ name: %s, traits: ["SET_SEMANTIC_TABLE"] }, { name: %s, type: "INT" }],
		state: { %s: { default: {} } }, eval() {} })`,
		jsString(output), jsString(args[0]), jsString(args[1]), jsString(state))
	for _, name := range append(craftedNames, lineBreakNames...) {
		def := load(t, name, "", decl)
		src, err := flink.ClassSource(flink.Project{Def: def, File: "evil*/ System.exit(4); /*\\u000a\n.js"})
		if err != nil {
			t.Fatal(err)
		}
		code, literals, err := javaLex(src)
		if err != nil {
			t.Fatalf("%q: %v\n%s", name, err, src)
		}
		if strings.Contains(code, "System.exit") || strings.Contains(code, "DROP TABLE") {
			t.Errorf("%q: a name reached the Java code outside literals and comments:\n%s", name, code)
		}
		if i := eligibleUnicodeEscape(src); i >= 0 {
			t.Errorf("%q: a \\u escape at %d, which Java would turn into its character: %q", name, i, src[max(i-20, 0):])
		}
		if !strings.Contains(code, "public class "+flink.ClassName(name)+" extends") {
			t.Errorf("%q: no class %s:\n%s", name, flink.ClassName(name), code)
		}
		for _, want := range append(args, state, "x`y\"z", "a*/b", "ROW<`x``y\"z` INT, `a*/b` STRING>") {
			if !literals[want] {
				t.Errorf("%q: no Java string literal holds %q; literals: %v", name, want, literals)
			}
		}
	}
}

func TestClassName(t *testing.T) {
	for name, want := range map[string]string{
		"greeting":             "Greeting",
		"GreetingWithMemory":   "GreetingWithMemory",
		"long_views":           "Long_views",
		"my-ptf":               "Myptf",
		"1st":                  "Fn1st",
		"_":                    "Fn_",
		"":                     "Fn",
		"Grüße":                "Gre",
		"日本":                   "Fn",
		"string":               "StringFunction",
		"JsFunction":           "JsFunctionFunction",
		"exportedCasesTest":    "ExportedCasesTestFunction",
		"f`; DROP TABLE x; --": "FDROPTABLEx",
	} {
		if got := flink.ClassName(name); got != want {
			t.Errorf("ClassName(%q) = %q, want %q", name, got, want)
		}
	}
}

// javaLex reads Java source: it returns the code outside comments and
// string and char literals (each literal replaced by ""), and the values
// of the string literals. A literal or comment that does not end is an
// error, as is a line break inside a literal.
func javaLex(src string) (code string, literals map[string]bool, err error) {
	var b strings.Builder
	literals = map[string]bool{}
	for i := 0; i < len(src); {
		switch {
		case strings.HasPrefix(src[i:], "//"):
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src) - i
			}
			i += end
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return "", nil, fmt.Errorf("a comment at %d does not end", i)
			}
			i += 2 + end + 2
		case src[i] == '"' || src[i] == '\'':
			q := src[i]
			var v strings.Builder
			j := i + 1
			for ; j < len(src) && src[j] != q; j++ {
				switch c := src[j]; {
				case c == '\n' || c == '\r':
					return "", nil, fmt.Errorf("a line break in the literal at %d", i)
				case c == '\\' && j+1 < len(src):
					j++
					switch e := src[j]; e {
					case 'n':
						v.WriteByte('\n')
					case 'r':
						v.WriteByte('\r')
					case 't':
						v.WriteByte('\t')
					case '\\', '"', '\'':
						v.WriteByte(e)
					default:
						if e < '0' || e > '7' || j+2 >= len(src) {
							return "", nil, fmt.Errorf("escape \\%c at %d", e, j)
						}
						n, err := strconv.ParseUint(src[j:j+3], 8, 8)
						if err != nil {
							return "", nil, fmt.Errorf("escape at %d: %v", j, err)
						}
						v.WriteByte(byte(n))
						j += 2
					}
				default:
					v.WriteByte(c)
				}
			}
			if j >= len(src) {
				return "", nil, fmt.Errorf("the literal at %d does not end", i)
			}
			if q == '"' {
				literals[v.String()] = true
			}
			b.WriteString(`""`)
			i = j + 1
		default:
			b.WriteByte(src[i])
			i++
		}
	}
	return b.String(), literals, nil
}

// eligibleUnicodeEscape returns the index of the first \u that Java reads
// as a Unicode escape (a backslash preceded by an even number of
// backslashes), or -1.
func eligibleUnicodeEscape(src string) int {
	for i := 0; i+1 < len(src); i++ {
		if src[i] != '\\' {
			continue
		}
		n := 0
		for j := i - 1; j >= 0 && src[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 && src[i+1] == 'u' {
			return i
		}
		i++ // skip the escaped character
	}
	return -1
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// jsString is s as a JavaScript string literal.
func jsString(s string) string { return strconv.Quote(s) }

func TestJavaLex(t *testing.T) {
	code, lits, err := javaLex("a(\"x\\\"y\\n\\001\", 'c') // z\n/* w */ b")
	if err != nil {
		t.Fatal(err)
	}
	if code != "a(\"\", \"\") \n b" {
		t.Errorf("code %q", code)
	}
	if d := cmp.Diff(map[string]bool{"x\"y\n\x01": true}, lits); d != "" {
		t.Errorf("literals (-want +got):\n%s", d)
	}
	for _, bad := range []string{"\"a\nb\"", "/* x", "\"x"} {
		if _, _, err := javaLex(bad); err == nil {
			t.Errorf("javaLex(%q): no error", bad)
		}
	}
	if eligibleUnicodeEscape(`a\\u000a`) != -1 || eligibleUnicodeEscape(`a\u000a`) != 1 || eligibleUnicodeEscape(`\\\u0`) != 2 {
		t.Errorf("eligibleUnicodeEscape")
	}
}
