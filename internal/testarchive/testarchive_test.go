package testarchive

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.txtar")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadExtractUpdate(t *testing.T) {
	p := write(t, "About the test.\n-- f.js --\nexport default {};\n-- data/x.csv --\na,b\n-- query.sql --\nSELECT 1;\n")
	test, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if test.Query != "SELECT 1;\n" || test.Comment() != "About the test.\n" {
		t.Errorf("Query %q, Comment %q", test.Query, test.Comment())
	}
	if _, ok := test.Want(); ok {
		t.Errorf("Want reports a want.out the file lacks")
	}
	dir := t.TempDir()
	if err := test.Extract(dir); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"f.js": "export default {};\n", "data/x.csv": "a,b\n"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
	}
	for _, name := range []string{"query.sql", "want.out"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("Extract wrote %s", name)
		}
	}
	if err := test.Update("+I[1]\n"); err != nil {
		t.Fatal(err)
	}
	again, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if w, ok := again.Want(); !ok || w != "+I[1]\n" {
		t.Errorf("after Update, Want = %q, %v", w, ok)
	}
}

func TestReadErrors(t *testing.T) {
	for _, src := range []string{"", "-- want.out --\nx\n", "-- query.sql --\n"} {
		if _, err := Read(write(t, src)); err == nil || !strings.Contains(err.Error(), "no -- query.sql -- section") {
			t.Errorf("Read(%q): %v, want a missing query.sql error", src, err)
		}
	}
}

// TestExtract_staysInside: a section may not write outside the folder.
func TestExtract_staysInside(t *testing.T) {
	for _, name := range []string{"../evil.js", "a/../../evil.js", "/tmp/evil.js"} {
		test, err := Read(write(t, "-- "+name+" --\nx\n-- query.sql --\nSELECT 1;\n"))
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "inner")
		err = test.Extract(dir)
		if err == nil || !strings.Contains(err.Error(), "must be a relative path inside the test's folder") {
			t.Errorf("%s: Extract = %v, want a refusal", name, err)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "evil.js")); err == nil {
			t.Errorf("%s: written outside the folder", name)
		}
	}
}

// TestSections: the check sections and the hint are read, set and saved,
// and are not files of the test.
func TestSections(t *testing.T) {
	p := write(t, "-- query.sql --\nSELECT 1;\n-- want.state --\nf (a) s 1\n-- hint --\nlook again\n")
	test, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := test.Section("want.state"); !ok || s != "f (a) s 1\n" {
		t.Errorf("Section(want.state) = %q, %v", s, ok)
	}
	if _, ok := test.Section("want.timers"); ok {
		t.Errorf("Section reports a want.timers the file lacks")
	}
	dir := t.TempDir()
	if err := test.Extract(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"want.state", "hint"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("Extract wrote %s", name)
		}
	}
	test.SetSection("want.state", "f (a) s 2\n")
	test.SetSection("want.out", "+I[1]\n")
	if err := test.Save(); err != nil {
		t.Fatal(err)
	}
	again, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := again.Section("want.state"); s != "f (a) s 2\n" {
		t.Errorf("after Save, want.state = %q", s)
	}
	if w, ok := again.Want(); !ok || w != "+I[1]\n" {
		t.Errorf("after Save, Want = %q, %v", w, ok)
	}
}
