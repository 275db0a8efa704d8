package kafka_test

import (
	"testing"

	"github.com/ptfsh/ptfsh/runtime/connector/kafka"
)

// FuzzAvro: a schema in Avro's JSON form (a registry's, or a table's)
// parses or fails without a panic, and so does a value in Confluent's
// wire format decoded with it; a value that decodes encodes again, to
// bytes that decode.
func FuzzAvro(f *testing.F) {
	rec := `{"type": "record", "name": "r", "fields": [{"name": "id", "type": "int"}, {"name": "name", "type": ["null", "string"]},` +
		` {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},` +
		` {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}}, {"name": "tags", "type": {"type": "array", "items": "string"}},` +
		` {"name": "m", "type": {"type": "map", "values": "double"}}]}`
	for _, c := range []struct{ schema, value string }{
		{rec, "\x00\x00\x00\x00\x01\x02\x02\x02a\x02\x01\x04\x02\x02x\x00\x02\x02k\x00\x00\x00\x00\x00\x00\xf0\x3f\x00"},
		{`"string"`, "\x00\x00\x00\x00\x07\x06abc"},
		{`{"type": "enum", "name": "e", "symbols": ["A", "B"]}`, "\x00\x00\x00\x00\x01\x02"},
		{`{"type": "fixed", "name": "f", "size": 2}`, "\x00\x00\x00\x00\x01ab"},
		{`["null", "long", {"type": "array", "items": "float"}]`, "\x00\x00\x00\x00\x01\x04\x02\x00\x00\x80\x3f\x00"},
		{`{"type": "record", "name": "n", "fields": [{"name": "next", "type": ["null", "n"]}]}`, "\x00\x00\x00\x00\x01\x02\x02\x00"},
		{`{"type": "int", "logicalType": "date"}`, "\x01\x00\x00\x00\x01\x02"},
		{`{`, ""},
	} {
		f.Add(c.schema, []byte(c.value))
	}
	f.Fuzz(func(t *testing.T, schema string, value []byte) {
		s, err := kafka.ParseAvro(schema)
		if err != nil {
			return
		}
		_, body, err := kafka.SplitConfluent(value)
		if err != nil {
			return
		}
		v, err := s.Decode(body)
		if err != nil {
			return
		}
		b, err := s.Encode(nil, v)
		if err != nil {
			t.Fatalf("schema %s: %q decodes to %#v, which does not encode: %v", schema, body, v, err)
		}
		if _, err := s.Decode(b); err != nil {
			t.Fatalf("schema %s: %q decodes to %#v, which encodes to %q, which does not decode: %v", schema, body, v, b, err)
		}
	})
}
