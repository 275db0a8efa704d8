package tests

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileIdentity: a sink is compared with the files its query reads,
// and the sinks of a statement set with each other, by the file they
// reach, not by the text of their paths: a symbolic link, a linked folder
// or a hard link to a source is refused (it would read the rows it
// appends, and grow without end), and so are two sinks of one file (their
// lines would tear), each with an error that names both tables; the files
// stay as they were.
func TestFileIdentity(t *testing.T) {
	const tables = `CREATE TABLE t (a STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE latest (a STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'latest.csv', 'format' = 'csv');
CREATE TABLE d (a STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'data', 'format' = 'csv');
CREATE TABLE o (a STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'o.csv', 'format' = 'csv');
CREATE TABLE alias (a STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'alias.csv', 'format' = 'csv');
CREATE TABLE inside (a STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'linked/new.csv', 'format' = 'csv');
`
	link := func(target, name string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	hard := func(target, name string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			if err := os.Link(filepath.Join(dir, target), filepath.Join(dir, name)); err != nil {
				t.Skipf("hard link: %v", err)
			}
		}
	}
	tests := []struct {
		name string
		make func(t *testing.T, dir string)
		stmt string
		want string
	}{
		{name: "symlink_to_source", make: link("t.csv", "latest.csv"),
			stmt: "INSERT INTO latest SELECT * FROM t;",
			want: "query.sql:1:13: INSERT INTO 'latest' writes 'latest.csv', which table 't' reads ('t.csv': the same file, through a symbolic link or a hard link), so the INSERT would read the rows it writes; write to another file"},
		{name: "hard_link_to_source", make: hard("t.csv", "latest.csv"),
			stmt: "INSERT INTO latest SELECT * FROM t;",
			want: "INSERT INTO 'latest' writes 'latest.csv', which table 't' reads ('t.csv': the same file, through a symbolic link or a hard link)"},
		{name: "symlink_overwrite", make: link("t.csv", "latest.csv"),
			stmt: "INSERT OVERWRITE latest SELECT * FROM t;",
			want: "INSERT INTO 'latest' writes 'latest.csv', which table 't' reads"},
		{name: "link_in_source_folder", make: link("../o.csv", "data/z.csv"),
			stmt: "INSERT INTO o SELECT * FROM d;",
			want: "INSERT INTO 'o' writes 'o.csv', which table 'd' reads ('data': a folder that holds it)"},
		{name: "sink_in_linked_folder", make: link("data", "linked"),
			stmt: "INSERT INTO inside SELECT * FROM d;",
			want: "INSERT INTO 'inside' writes 'linked/new.csv', which table 'd' reads ('data': a folder that holds it)"},
		{name: "statement_set_symlink", make: link("o.csv", "alias.csv"),
			stmt: "EXECUTE STATEMENT SET BEGIN INSERT INTO o SELECT * FROM t; INSERT INTO alias SELECT * FROM t; END;",
			want: "query.sql:1:72: the statement set writes one file twice: 'alias.csv' of table 'alias' is 'o.csv' of table 'o' (the same file, through a symbolic link or a hard link); give each INSERT its own file"},
		{name: "statement_set_dangling_symlink", make: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "o.csv"))
			link("o.csv", "alias.csv")(t, dir)
		},
			stmt: "EXECUTE STATEMENT SET BEGIN INSERT INTO o SELECT * FROM t; INSERT INTO alias SELECT * FROM t; END;",
			want: "the statement set writes one file twice: 'alias.csv' of table 'alias' is 'o.csv' of table 'o'"},
		{name: "statement_set_hard_link", make: hard("o.csv", "alias.csv"),
			stmt: "EXECUTE STATEMENT SET BEGIN INSERT INTO o SELECT * FROM t; INSERT INTO alias SELECT * FROM t; END;",
			want: "the statement set writes one file twice: 'alias.csv' of table 'alias' is 'o.csv' of table 'o'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHostileSession(t)
			files := map[string]string{"t.csv": "a,1\nb,2\n", "data/x.csv": "c,3\n", "o.csv": "o,0\n"}
			for name, content := range files {
				p := filepath.Join(h.dir, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			tc.make(t, h.dir)
			h.mustExec(tables)
			_, err := h.exec(context.Background(), tc.stmt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant %q", err, tc.want)
			}
			for name, content := range files {
				if b, _ := os.ReadFile(filepath.Join(h.dir, name)); string(b) != content && !(name == "o.csv" && len(b) == 0) {
					t.Errorf("%s changed: %q", name, b)
				}
			}
		})
	}
}

// TestFileIdentity_writesThroughLink: INSERT OVERWRITE and a parquet
// INSERT into a table whose path is a symbolic link to a file replace the
// file it points to and keep the link, as INSERT INTO appends through it.
func TestFileIdentity_writesThroughLink(t *testing.T) {
	h := newHostileSession(t)
	if err := os.WriteFile(filepath.Join(h.dir, "real.csv"), []byte("old,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.csv", filepath.Join(h.dir, "cur.csv")); err != nil {
		t.Fatal(err)
	}
	h.mustExec(`CREATE TABLE cur (a STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'cur.csv', 'format' = 'csv');
INSERT OVERWRITE cur VALUES ('new', 1);
INSERT INTO cur VALUES ('more', 2);`)
	if fi, err := os.Lstat(filepath.Join(h.dir, "cur.csv")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("cur.csv is no longer a link: %v, %v", fi, err)
	}
	if b, _ := os.ReadFile(filepath.Join(h.dir, "real.csv")); string(b) != "new,1\nmore,2\n" {
		t.Errorf("real.csv holds %q", b)
	}
}
