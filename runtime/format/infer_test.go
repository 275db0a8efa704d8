package format_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// TestInferCSV_types: the type of each column is the narrowest that reads
// every sampled value, widened on a mix; rows past the sample do not
// count.
func TestInferCSV_types(t *testing.T) {
	var b strings.Builder
	b.WriteString("i,f,mix,d,ts,b,s,z,none\n")
	b.WriteString("1,1,1,2025-01-01,2025-01-01 10:00:00,true,x,007,\n")
	b.WriteString("-2,2.5,2.5,2025-01-02 10:00:00,2025-01-01T10:00:00.5,False,y,7,\n")
	b.WriteString("3,1e3,abc,2025-01-03,2025-01-01 10:00,TRUE,,8,\n")
	for i := 0; i < format.InferSampleRows; i++ {
		b.WriteString("4,5,6,2025-01-04,2025-01-01 10:00:00,true,z,9,\n")
	}
	b.WriteString("not,a,number,at,all,past,the,sample,x\n")
	path := writeFile(t, "t.csv", b.String())
	cols, err := format.InferCSV(path, format.CSVSourceOptions{Header: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cols {
		got = append(got, c.Name+" "+c.Type.String())
	}
	want := "i BIGINT, f DOUBLE, mix STRING, d TIMESTAMP(3), ts TIMESTAMP(3), b BOOLEAN, s STRING, z STRING, none STRING"
	if strings.Join(got, ", ") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, ", "), want)
	}
	if _, err := format.InferCSV(path, format.CSVSourceOptions{}); err == nil {
		t.Fatal("no header: want an error")
	}
}

// TestInferJSON_pattern: a timestamp pattern types the strings it reads
// as TIMESTAMP(3).
func TestInferJSON_pattern(t *testing.T) {
	path := writeFile(t, "t.json", `{"at": "2001/01/01 00:47", "n": 12345678901234567890}`+"\n")
	cols, err := format.InferJSON(path, format.JSONSourceOptions{Parse: textparse.Options{TimestampPattern: "yyyy/MM/dd HH:mm"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) != 2 || cols[0].Type.Kind != types.KindTimestamp || !cols[1].Type.IsString() {
		t.Fatalf("got %v", cols)
	}
}

// FuzzInfer feeds inference any bytes, as CSV with a header and as JSON:
// it returns columns with distinct, non-empty names, or an error that is
// a *ParseError (with a line and column when it has a line) or a read
// error, never a panic.
func FuzzInfer(f *testing.F) {
	for _, s := range []string{
		"a,b\n1,2\n", "a,a\n", ",\n", "a\n\"x\n", "\xef\xbb\xbfa;b\n1;2", "a,b\n1\n",
		`{"a":1}`, `[{"a":{"b":[1,2.5]}},{"a":3}]`, `{"a":1}` + "\n42\n", `[`, `{"a":}`, "\xef\xbb\xbf [ ]", `{"a":{"":1}}`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, json bool) {
		path := filepath.Join(dir, "fuzz")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var cols []types.Column
		var err error
		if json {
			cols, err = format.InferJSON(path, format.JSONSourceOptions{})
		} else {
			cols, err = format.InferCSV(path, format.CSVSourceOptions{Header: true})
		}
		if err != nil {
			var pe *format.ParseError
			var lt *format.LineTooLongError
			if !errors.As(err, &pe) && !errors.As(err, &lt) && !strings.HasPrefix(err.Error(), "read ") {
				t.Fatalf("error of type %T: %v", err, err)
			}
			if pe != nil && pe.Line > 0 && pe.Col < 1 {
				t.Fatalf("bad position: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, c := range cols {
			if c.Name == "" || seen[c.Name] {
				t.Fatalf("bad columns %v", cols)
			}
			seen[c.Name] = true
		}
	})
}

// TestInferJSON_hostile: nesting deeper than the readers read is an error
// at its place, not a stack overflow; blank lines before the rows count
// in the error's line.
func TestInferJSON_hostile(t *testing.T) {
	deep := writeFile(t, "deep.json", `{"a":`+strings.Repeat("[", 1_000_000)+strings.Repeat("]", 1_000_000)+"}\n")
	if _, err := format.InferJSON(deep, format.JSONSourceOptions{}); err == nil || !strings.Contains(err.Error(), "deep.json:1:518: JSON nested deeper than 512 levels") {
		t.Fatalf("deep: %v", err)
	}
	blank := writeFile(t, "blank.json", strings.Repeat("\n", 200_000)+`{"a": 1}`+strings.Repeat("\n", 100_000)+"  7\n")
	if _, err := format.InferJSON(blank, format.JSONSourceOptions{}); err == nil || !strings.Contains(err.Error(), "blank.json:300001:3: a row must be a JSON object") {
		t.Fatalf("blank lines: %v", err)
	}
}
