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

// TestHintsAndHidden: hints come in order (hint, then hint 1, hint 2,
// ...), are not files, and want.hidden keeps what it is given out of
// sight, unchanged.
func TestHintsAndHidden(t *testing.T) {
	p := write(t, "-- query.sql --\nSELECT 1;\n-- hint 2 --\nsecond\n-- hint --\nfirst\n-- hint 10 --\ntenth\n-- hint x --\nnot a hint\n")
	test, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(test.Hints(), "|"); got != "first\n|second\n|tenth\n" {
		t.Errorf("Hints = %q", got)
	}
	dir := t.TempDir()
	if err := test.Extract(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"hint", "hint 2", "hint 10"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("Extract wrote the hint %q", name)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "hint x")); err != nil {
		t.Errorf("a section that is not a hint was not extracted: %v", err)
	}
	if _, ok, err := test.Hidden(); ok || err != nil {
		t.Errorf("Hidden of a test without want.hidden: %v, %v", ok, err)
	}
	out := strings.Repeat("+I[ride 42, 2020-01-01T12:00:20Z]\n", 10)
	test.SetHidden(out)
	if err := test.Save(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if strings.Contains(string(b), "ride 42") {
		t.Errorf("want.hidden shows the rows:\n%s", b)
	}
	again, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok, err := again.Hidden(); !ok || err != nil || got != out {
		t.Errorf("Hidden = %q, %v, %v", got, ok, err)
	}
	again.SetSection("want.hidden", "not base64!\n")
	if _, _, err := again.Hidden(); err == nil || !strings.Contains(err.Error(), "not base64") {
		t.Errorf("a broken want.hidden: %v", err)
	}
}
