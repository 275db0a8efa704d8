package format_test

import (
	"errors"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// FuzzRecord: the record decoders of Kafka keys and values (JSON objects
// and CSV records) never panic, fail only with a *ParseError positioned
// within the record, and give rows of the schema's width.
func FuzzRecord(f *testing.F) {
	for _, s := range []string{`{"name": "Bob", "score": 1, "ts": "2025-03-27 12:00:00"}`, `{"name": "\u00e9", "tags": ["a"]}`, `{}`, `[1]`, `{"score": "x"}`,
		"Bob,1,2025-03-27 12:00:00", `"a,b",2,`, "\"open", "a,b,c,d", "", "\n"} {
		f.Add([]byte(s))
	}
	sch := types.Schema{Columns: []types.Column{
		{Name: "name", Type: types.Type{Kind: types.KindVarChar, Length: types.MaxLength}},
		{Name: "score", Type: types.Type{Kind: types.KindInt}},
		{Name: "ts", Type: types.Type{Kind: types.KindTimestamp, Length: 3}},
	}}
	jd, err := format.NewJSONRecordDecoder(sch, format.JSONSourceOptions{})
	if err != nil {
		f.Fatal(err)
	}
	cd, err := format.NewCSVRecordDecoder(sch, format.CSVSourceOptions{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, rec []byte) {
		for _, d := range []*format.RecordDecoder{jd, cd} {
			r, err := d.Decode(rec)
			if err != nil {
				var pe *format.ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("%q: not a ParseError: %v", rec, err)
				}
				if pe.Line < 1 || pe.Col < 1 || pe.Line > len(rec)+2 {
					t.Fatalf("%q: position %d:%d outside the record", rec, pe.Line, pe.Col)
				}
				continue
			}
			if len(r.Fields) != sch.Len() {
				t.Fatalf("%q: %d fields", rec, len(r.Fields))
			}
			// The row writes back to a record that decodes to the same.
			var back []byte
			if d == jd {
				back = format.AppendJSONRecord(nil, sch, r, false)
			} else {
				back, _ = format.AppendCSVRecord(nil, sch, r, nil)
			}
			r2, err := d.Decode(back)
			if err != nil {
				t.Fatalf("%q wrote %q, which does not decode: %v", rec, back, err)
			}
			if types.FormatRow(r, sch) != types.FormatRow(r2, sch) {
				t.Fatalf("%q: %s, written %q, reads %s", rec, types.FormatRow(r, sch), back, types.FormatRow(r2, sch))
			}
		}
	})
}
