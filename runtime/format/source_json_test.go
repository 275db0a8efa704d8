package format_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
)

func TestOpenJSON(t *testing.T) {
	bob := `+I("Bob", int64(12), 2025-03-27T12:00:00.000)`
	alice := `+I("Alice", NULL, NULL)`
	big := schema(col("id", types.TypeBigInt), col("amount", tDecimal(38, 10)), col("ratio", types.TypeDouble))
	nested := schema(col("tags", types.ArrayOf(types.TypeInt)),
		col("attrs", types.MapOf(types.TypeString, types.TypeString)),
		col("pt", types.NewRowType(types.Field{Name: "x", Type: types.TypeInt}, types.Field{Name: "y", Type: types.TypeInt})))
	text := schema(col("s", types.TypeString))
	times := schema(col("ts", tTS3), col("ltz", tLTZ3), col("d", tDate))
	sqlFormat := format.JSONSourceOptions{Parse: textparse.Options{TimestampFormat: textparse.TimestampFormatSQL}}
	isoFormat := format.JSONSourceOptions{Parse: textparse.Options{TimestampFormat: textparse.TimestampFormatISO8601}}
	tests := []readerCase{
		{name: "lines", content: "{\"name\":\"Bob\",\"score\":12,\"ts\":\"2025-03-27T12:00:00Z\"}\n{\"name\":\"Alice\"}\n", want: []string{bob, alice}},
		{name: "lines any field order, unknown fields, blank lines", content: "\n  \n{\"extra\":{\"deep\":[1,{\"a\":null}]},\"ts\":1743076800000,\"score\":12,\"name\":\"Bob\"}\n\n", want: []string{bob}},
		{name: "lines crlf and no final newline", content: "{\"name\":\"Bob\",\"score\":12,\"ts\":\"2025-03-27 12:00:00\"}\r\n{\"name\":\"Alice\"}", want: []string{bob, alice}},
		{name: "array one line", content: `[{"name":"Bob","score":12,"ts":"2025-03-27T12:00:00"},{"name":"Alice"}]`, want: []string{bob, alice}},
		{name: "array pretty", content: "[\n  {\n    \"name\": \"Bob\",\n    \"score\": 12,\n    \"ts\": \"2025-03-27 12:00:00\"\n  },\n  {\"name\": \"Alice\"}\n]\n", want: []string{bob, alice}},
		{name: "array empty", content: " [ ] "},
		{name: "empty file", content: ""},
		{name: "white space only", content: " \n\t\r\n"},
		{name: "bom", content: "\xef\xbb\xbf{\"name\":\"Alice\"}\n", want: []string{alice}},
		{name: "explicit nulls", content: `{"name":null,"score":null,"ts":null}`, want: []string{"+I(NULL, NULL, NULL)"}},
		{name: "empty object", content: `{}`, want: []string{"+I(NULL, NULL, NULL)"}},
		{name: "numbers stay exact", schema: big,
			content: `{"id": 9007199254740993, "amount": 12345678901234567890.0123456789, "ratio": 1e-7}` + "\n" + `{"id": -9223372036854775808, "amount": "1.5", "ratio": "NaN"}`,
			want:    []string{"+I(int64(9007199254740993), 123456789012345678900123456789E-10, float64(1e-07))", "+I(int64(-9223372036854775808), 15000000000E-10, float64(NaN))"}},
		{name: "numbers from strings", content: `{"score":"12"}`, want: []string{"+I(NULL, int64(12), NULL)"}},
		{name: "string takes any json", schema: text, content: "{\"s\": 1.50}\n{\"s\": true}\n{\"s\": [1, {\"a\": \"b c\"}]}\n{\"s\": \"caf\\u00e9 \\\"q\\\" \\ud83d\\ude00\"}\n",
			want: []string{`+I("1.50")`, `+I("true")`, `+I("[1,{\"a\":\"b c\"}]")`, `+I("café \"q\" 😀")`}},
		{name: "nested", schema: nested, content: `{"tags":[1,2,null],"attrs":{"k":"v"},"pt":{"y":2,"x":1}}`,
			want: []string{`+I([int64(1), int64(2), NULL], {"k"="v"}, +I(int64(1), int64(2)))`}},
		{name: "nested bad element", schema: nested, content: "[{\"tags\": [1,\n  \"two\"]}]", wantErr: `x.json:2:3: column "tags": cannot parse "two" as INT`},
		{name: "type mismatch string", content: `{"name":"a","score":"abc"}`, wantErr: `x.json:1:21: column "score": cannot parse "abc" as INT`},
		{name: "type mismatch bool", content: `{"score": true}`, wantErr: `x.json:1:11: column "score": cannot parse true as INT`},
		{name: "type mismatch object", content: `{"score": {"a": 1}}`, wantErr: `x.json:1:11: column "score": cannot parse {"a":1} as INT`},
		{name: "fraction for int", content: `{"score": 1.5}`, wantErr: `x.json:1:11: column "score": cannot parse "1.5" as INT`},
		{name: "int out of range", content: `{"score": 2147483648}`, wantErr: `x.json:1:11: column "score": cannot parse "2147483648" as INT: out of range [-2147483648, 2147483647]`},
		{name: "bad timestamp", content: `{"ts": "tomorrow"}`, wantErr: `x.json:1:8: column "ts": cannot parse "tomorrow" as TIMESTAMP(3): expected yyyy-MM-dd HH:mm:ss, ISO-8601 or epoch milliseconds`},
		{name: "error in pretty array", content: "[\n  {\"name\": \"a\"},\n  {\"name\": \"b\",\n   \"score\": \"x\"}\n]", wantErr: `x.json:4:13: column "score": cannot parse "x" as INT`, want: []string{`+I("a", NULL, NULL)`}},
		{name: "syntax trailing comma", content: `{"name": "a",}`, wantErr: `x.json:1:14: invalid JSON: unexpected '}', expected a string key`},
		{name: "syntax after object", content: `{"name": "a"} x`, wantErr: `x.json:1:15: invalid JSON: unexpected 'x', expected the end of the line after the object`},
		{name: "syntax bad literal", content: `{"name": nul}`, wantErr: `x.json:1:10: column "name": invalid JSON: unexpected 'n', expected a JSON value`},
		{name: "syntax unterminated string", content: `{"name": "abc`, wantErr: `x.json:1:10: column "name": invalid JSON: unterminated string`},
		{name: "syntax bad escape", content: `{"name": "a\qb"}`, wantErr: `x.json:1:12: column "name": invalid JSON: invalid escape \q`},
		{name: "syntax bad escape of a tab", content: "{\"name\": \"a\\\tb\"}", wantErr: `x.json:1:12: column "name": invalid JSON: invalid escape: a backslash before "\t"`},
		{name: "syntax control character", content: "{\"name\": \"a\tb\"}", wantErr: `x.json:1:12: column "name": invalid JSON: control character 0x09 in string`},
		{name: "syntax number", content: `{"score": 01}`, wantErr: `x.json:1:12: invalid JSON: unexpected '1', expected ',' or '}'`},
		{name: "not an object", content: "[1, 2]\n", wantErr: `x.json:1:2: invalid JSON: unexpected '1', expected a JSON object`},
		{name: "line not an object", content: "\"text\"\n", wantErr: `x.json:1:1: invalid JSON: unexpected '"', expected a JSON object`},
		{name: "array not closed", content: `[{"name": "Alice"}`, want: []string{alice}, wantErr: `x.json:1:19: unexpected end of file: the JSON array is not closed`},
		{name: "array object not closed", content: `[{"name": "Alice"`, wantErr: `x.json:1:2: unexpected end of file inside a JSON value`},
		{name: "array missing comma", content: `[{"name": "Alice"} {}]`, want: []string{alice}, wantErr: `x.json:1:20: invalid JSON: unexpected '{', expected ',' or ']' in the array`},
		{name: "array double comma", content: `[{}, , {}]`, want: []string{"+I(NULL, NULL, NULL)"}, wantErr: `x.json:1:6: invalid JSON: unexpected ',', expected an object`},
		{name: "after array", content: `[{"name": "Alice"}] {}`, want: []string{alice}, wantErr: `x.json:1:21: invalid JSON: unexpected '{' after the top-level array`},
		{name: "invalid utf8", content: "{\"name\": \"a\xffb\"}", wantErr: `x.json:1:10: column "name": invalid UTF-8 in "a\xffb"`},
		{name: "invalid utf8 in a key", content: "{\"n\xffme\": \"ab\", \"score\": 1}", wantErr: `x.json:1:4: invalid UTF-8 (byte 0xff)`},
		{name: "fail on missing field", json: format.JSONSourceOptions{FailOnMissingField: true}, content: `{"name": "a", "score": 1}`, wantErr: `x.json:1:1: column "ts": missing field`},
		{name: "not null missing", schema: schema(col("id", types.TypeInt.AsNotNull())), content: "{}", wantErr: `x.json:1:1: column "id": missing field for INT NOT NULL`},
		{name: "not null null", schema: schema(col("id", types.TypeInt.AsNotNull())), content: `{"id": null}`, wantErr: `x.json:1:8: column "id": null value for INT NOT NULL`},
		{name: "escaped key", content: `{"n\u0061me":"Bob","score":12,"ts":"2025-03-27T12:00:00Z"}`, want: []string{bob}},
		{name: "keys in the schema's order, spaced", content: "{ \"name\" :\t\"Bob\" , \"score\" : 12 ,\"ts\"\t:\"2025-03-27T12:00:00Z\" }", want: []string{bob}},
		{name: "int out of range", content: `{"score": 2147483648}`, wantErr: `x.json:1:11: column "score": cannot parse "2147483648" as INT: out of range [-2147483648, 2147483647]`},
		{name: "ints", content: `{"score": -1024}` + "\n" + `{"score": 4096}` + "\n" + `{"score": 1e2}`,
			want: []string{"+I(NULL, int64(-1024), NULL)", "+I(NULL, int64(4096), NULL)"}, wantErr: `x.json:3:11: column "score": cannot parse "1e2" as INT`},
		{name: "duplicate key last wins", content: `{"score": 1, "score": 2}`, want: []string{"+I(NULL, int64(2), NULL)"}},
		{name: "times default", schema: times, content: `{"ts": "2025-03-27 12:00:00.5", "ltz": "2025-03-27T12:00:00+01:00", "d": "2025-03-27"}` + "\n" + `{"ts": 1743076800000, "ltz": 0}`,
			want: []string{"+I(2025-03-27T12:00:00.500, 2025-03-27T11:00:00.000Z, 2025-03-27)", "+I(2025-03-27T12:00:00.000, 1970-01-01T00:00:00.000Z, NULL)"}},
		{name: "times sql", schema: times, json: sqlFormat, content: `{"ts": "2025-03-27 12:00:00.123", "ltz": "2025-03-27 12:00:00Z"}` + "\n" + `{"ts": "2025-03-27T12:00:00"}`,
			want:    []string{"+I(2025-03-27T12:00:00.123, 2025-03-27T12:00:00.000Z, NULL)"},
			wantErr: `x.json:2:8: column "ts": cannot parse "2025-03-27T12:00:00" as TIMESTAMP(3): expected yyyy-MM-dd HH:mm:ss[.SSS]`},
		{name: "times iso", schema: times, json: isoFormat, content: `{"ts": "2025-03-27T12:00:00", "ltz": "2025-03-27T12:00:00.5Z"}` + "\n" + `{"ltz": 0}`,
			want:    []string{"+I(2025-03-27T12:00:00.000, 2025-03-27T12:00:00.500Z, NULL)"},
			wantErr: `x.json:2:9: column "ltz": cannot parse "0" as TIMESTAMP_LTZ(3)`},
		{name: "times pattern", schema: times, json: format.JSONSourceOptions{Parse: textparse.Options{TimestampPattern: "yyyy/MM/dd HH:mm"}},
			content: `{"ts": "2001/01/01 00:47", "ltz": 1000, "d": "2001-01-02"}`,
			want:    []string{"+I(2001-01-01T00:47:00.000, 1970-01-01T00:00:01.000Z, 2001-01-02)"}},
		{name: "ignore parse errors lines", json: format.JSONSourceOptions{IgnoreParseErrors: true},
			content: "{\"score\": \"x\"}\n{\"name\":\"Bob\",\"score\":12,\"ts\":\"2025-03-27T12:00:00Z\"}\nnot json\n{\"score\": 1,\n{\"name\": \"Alice\"}\n[]\n{\"ts\": \"bad\"}\n{\"name\": \"\xff\"}\n",
			want:    []string{bob, alice},
			skipped: 6,
			firstBad: []string{
				`x.json:1:11: column "score": cannot parse "x" as INT`,
				`x.json:3:1: invalid JSON: unexpected 'n', expected a JSON object`,
				`x.json:4:13: invalid JSON: unexpected end of input, expected a string key`,
				`x.json:6:1: invalid JSON: unexpected '[', expected a JSON object`,
				`x.json:7:8: column "ts": cannot parse "bad" as TIMESTAMP(3): expected yyyy-MM-dd HH:mm:ss, ISO-8601 or epoch milliseconds`,
			}},
		{name: "ignore parse errors array", json: format.JSONSourceOptions{IgnoreParseErrors: true},
			content: `[{"score": "x"}, 5, {"name": "Alice"}, {"name": 1, "name":}, "s", {"name": "Alice"} {}]`,
			want:    []string{alice, alice},
			skipped: 4,
			firstBad: []string{
				`x.json:1:12: column "score": cannot parse "x" as INT`,
				`x.json:1:18: invalid JSON: unexpected '5', expected a JSON object`,
				`x.json:1:59: column "name": invalid JSON: unexpected '}', expected a JSON value`,
				`x.json:1:62: invalid JSON: unexpected '"', expected a JSON object`,
			},
			wantErr: `x.json:1:85: invalid JSON: unexpected '{', expected ',' or ']' in the array`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, func(path string, s types.Schema) (format.RowReader, error) {
				return format.OpenJSON(path, s, tt.json)
			}, "x.json")
		})
	}
}

func TestOpenJSON_wideSchema(t *testing.T) {
	// More than 16 columns: fields are found through a map.
	var cols []types.Column
	content := "{"
	for i := range 40 {
		name := string(rune('a'+i%26)) + string(rune('a'+i/26))
		cols = append(cols, col(name, types.TypeInt))
		if i > 0 {
			content += ","
		}
		content += `"` + name + `":` + string(rune('0'+i%10))
	}
	content += `,"zz":1}`
	path := writeFile(t, "wide.json", content)
	r, err := format.OpenJSON(path, schema(cols...), format.JSONSourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	row, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range row.Fields {
		if v != int64(i%10) {
			t.Fatalf("field %d = %v", i, v)
		}
	}
}

func TestOpenJSON_largeObjects(t *testing.T) {
	// Objects larger than the reader's buffer, in an array and in lines.
	long := make([]byte, 300<<10)
	for i := range long {
		long[i] = 'a' + byte(i%26)
	}
	obj := `{"name":"` + string(long) + `","score":1}`
	for name, content := range map[string]string{"array": "[" + obj + "," + obj + "]", "lines": obj + "\n" + obj} {
		path := writeFile(t, "large.json", content)
		r, err := format.OpenJSON(path, scoreSchema, format.JSONSourceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			row, err := r.Next()
			if err != nil || row.Fields[0] != string(long) {
				t.Fatalf("%s row %d: %v", name, i, err)
			}
		}
		wantOffset := int64(len(content))
		if name == "array" {
			wantOffset-- // just after the last object, before the ']'
		}
		if pos := r.Position(); pos.Offset != wantOffset || pos.Row != 2 {
			t.Errorf("%s: position %v, want offset %d, row 2", name, pos, wantOffset)
		}
		r.Close()
	}
}

func FuzzJSON(f *testing.F) {
	seeds := []string{
		"", "[]", "[", "{", "\xef\xbb\xbf[{}]",
		`{"s":"a","i":1,"ts":"2025-03-27T12:00:00Z","d":1.5,"a":[1,null]}`,
		"{\"s\":\"\\ud83d\\ude00\",\"i\":\"12\"}\n\n{\"i\":99999999999}\n",
		`[{"s":1},2,"x",{"a":[[]]},{"d":"1e9"}] `,
		"{\"s\":\"a\xff\"}", `[{"s":"\"}]`, `{"a":[1,2` + "\n" + `{}`, `[{}]]`, `{"i":-0.0e+1}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s), false)
	}
	// One file per fuzzing process, rewritten for each input: a temporary
	// folder per input makes fuzzing ten times slower.
	path := filepath.Join(f.TempDir(), "fuzz.json")
	f.Fuzz(func(t *testing.T, data []byte, ignore bool) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := format.OpenJSON(path, fuzzSchema, format.JSONSourceOptions{IgnoreParseErrors: ignore})
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		defer r.Close()
		drain(t, r)
	})
}

func TestOpenJSON_bufferBoundaries(t *testing.T) {
	// Many small objects, so that some straddle the ends of the reader's
	// 64 KiB buffer, with bad ones among them.
	var b strings.Builder
	b.WriteString("[\n")
	const n = 20000
	for i := range n {
		if i > 0 {
			b.WriteString(",")
			if i%7 == 0 {
				b.WriteString("\n")
			}
		}
		if i%1000 == 999 {
			fmt.Fprintf(&b, `{"name": "row%d", "score": "bad%d"}`, i, i)
			continue
		}
		fmt.Fprintf(&b, `{"name": "row%d", "score": %d, "pad": "%s"}`, i, i, strings.Repeat("x", i%50))
	}
	b.WriteString("\n]")
	path := writeFile(t, "many.json", b.String())
	r, err := format.OpenJSON(path, scoreSchema, format.JSONSourceOptions{IgnoreParseErrors: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want := 0
	for {
		row, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if want%1000 == 999 {
			want++
		}
		if row.Fields[0] != fmt.Sprintf("row%d", want) || row.Fields[1] != int64(want) {
			t.Fatalf("row %d: %s", want, showRow(row))
		}
		want++
	}
	if want%1000 == 999 {
		want++ // the last object is a bad one
	}
	if want != n {
		t.Errorf("read up to row %d, want %d", want, n)
	}
	skipped, first := r.(format.SkipReporter).Skipped()
	if skipped != n/1000 || len(first) != format.MaxSkippedKept {
		t.Fatalf("skipped %d, %v", skipped, first)
	}
	// Check the reported position of the first bad value against the text.
	lines := strings.Split(b.String(), "\n")
	e := first[0]
	if e.Line < 1 || e.Line > len(lines) || !strings.HasPrefix(lines[e.Line-1][e.Col-1:], `"bad999"`) {
		t.Errorf("error %v does not point at the bad value", &e)
	}
	if pos := r.Position(); pos.Offset != int64(b.Len()) || pos.Line != len(lines) || pos.Row != n-n/1000 {
		t.Errorf("end position %v, want offset %d, line %d", pos, b.Len(), len(lines))
	}
}
