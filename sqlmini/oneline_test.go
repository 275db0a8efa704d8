package sqlmini_test

import (
	"testing"

	"github.com/ptfsh/ptfsh/sqlmini"
)

func TestOneLine(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"SELECT *\nFROM t;\n", "SELECT * FROM t;", true},
		{"SELECT *   -- all of it\n  FROM t\n WHERE a = 'x  y';", "SELECT *   /* all of it */ FROM t WHERE a = 'x  y';", true},
		{"SELECT 1 -- a */ b\n;", "SELECT 1 /* a * / b */ ;", true},
		{"SELECT /* one\ntwo */ 1;", "SELECT /* one two */ 1;", true},
		{"SELECT 'a\nb';", "", false},
		{"SELECT `a\nb` FROM t;", "", false},
		{"CREATE FUNCTION f LANGUAGE JAVASCRIPT AS $$ export default {\n} $$;", "", false},
		{"CREATE FUNCTION f LANGUAGE JAVASCRIPT AS $$ export default {} $$\n;", "CREATE FUNCTION f LANGUAGE JAVASCRIPT AS $$ export default {} $$ ;", true},
		{"EXECUTE STATEMENT SET\nBEGIN\n  INSERT INTO a SELECT * FROM t;\n  INSERT INTO b SELECT * FROM t;\nEND;", "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM t; INSERT INTO b SELECT * FROM t; END;", true},
	} {
		got, ok := sqlmini.OneLine(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("OneLine(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		// The line parses to the same statements as the lines did.
		a, errA := sqlmini.Parse("", tt.in)
		b, errB := sqlmini.Parse("", got)
		if (errA == nil) != (errB == nil) || len(a) != len(b) {
			t.Errorf("OneLine(%q) = %q parses differently: %v, %v", tt.in, got, errA, errB)
			continue
		}
		for i := range a {
			if a[i].String() != b[i].String() {
				t.Errorf("OneLine(%q): statement %d is %q, was %q", tt.in, i, b[i], a[i])
			}
		}
	}
}
