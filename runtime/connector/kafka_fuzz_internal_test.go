package connector

import (
	"errors"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/connector/kafka"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// FuzzKafkaRecord: the decoders of the Kafka formats of this package (raw,
// debezium-json, avro-confluent's Avro value) and the parser of
// 'scan.startup.specific-offsets' never panic; a bad record is a
// *format.ParseError; a row has the schema's width and a row kind the
// format declares; the raw format's check fails where its decode does.
func FuzzKafkaRecord(f *testing.F) {
	for _, s := range []string{`{"before": null, "after": {"id": 1, "name": "a"}, "op": "c"}`,
		`{"before": {"id": 1}, "after": {"id": 1, "name": "b"}, "op": "u"}`, `{"payload": {"op": "d", "before": {"id": 2}}}`,
		`{"op": "x"}`, "\x00\x00\x00\x00\x01\x02\x02a", "\x02\x06abc\x00", "", "partition:0,offset:42;partition:1,offset:300", "\xff\xfe", "12345678"} {
		f.Add([]byte(s))
	}
	sch := types.Schema{Columns: []types.Column{
		{Name: "id", Type: types.Type{Kind: types.KindInt}},
		{Name: "name", Type: types.Type{Kind: types.KindVarChar, Length: types.MaxLength}},
	}}
	jd, err := format.NewJSONRecordDecoder(sch, format.JSONSourceOptions{})
	if err != nil {
		f.Fatal(err)
	}
	codecs := []recordCodec{
		&debeziumCodec{json: jsonCodec{sch: sch, dec: jd}},
		&debeziumCodec{json: jsonCodec{sch: sch, dec: jd}, schemaInclude: true},
		&rawCodec{typ: types.Type{Kind: types.KindBigInt}},
		&rawCodec{typ: types.Type{Kind: types.KindVarChar, Length: types.MaxLength}},
	}
	avroSch := types.Schema{Columns: []types.Column{
		{Name: "id", Type: types.Type{Kind: types.KindInt, NotNull: true}},
		{Name: "name", Type: types.Type{Kind: types.KindVarChar, Length: types.MaxLength}},
		{Name: "amount", Type: types.Type{Kind: types.KindDecimal, Length: 10, Scale: 2}},
		{Name: "ts", Type: types.Type{Kind: types.KindTimestampLTZ, Length: 3}},
		{Name: "tags", Type: types.ArrayOf(types.Type{Kind: types.KindVarChar, Length: types.MaxLength})},
	}}
	ws, err := kafka.ParseAvro(AvroSchemaOf(avroSch))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, c := range codecs {
			rows, err := c.decode(b, nil)
			if raw, ok := c.(*rawCodec); ok && (raw.check(b) == nil) != (err == nil) {
				t.Fatalf("raw %s %q: check = %v, decode = %v", raw.typ, b, raw.check(b), err)
			}
			if err != nil {
				var pe *format.ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("%T %q: not a ParseError: %v", c, b, err)
				}
				continue
			}
			for _, r := range rows {
				if len(r.Fields) != 2 && len(r.Fields) != 1 {
					t.Fatalf("%T %q: %d fields", c, b, len(r.Fields))
				}
				if m := c.changelog(); !m.IsEmpty() && !m.Contains(r.Kind) {
					t.Fatalf("%T %q: kind %v", c, b, r.Kind)
				}
			}
		}
		if r, err := avroRow(ws, b, avroSch, 1); err == nil {
			if len(r.Fields) != avroSch.Len() {
				t.Fatalf("avro %q: %d fields", b, len(r.Fields))
			}
		} else if pe := (*format.ParseError)(nil); !errors.As(err, &pe) {
			t.Fatalf("avro %q: not a ParseError: %v", b, err)
		}
		if offs, err := specificOffsets(map[string]string{"k": string(b)}, "k", "m"); err == nil && len(offs) == 0 {
			t.Fatalf("specific offsets %q: none and no error", b)
		}
	})
}
