package connector

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// A recordCodec turns the bytes of a record's key or value into rows of
// its format's columns and back. decode appends to out the rows a record
// holds: one for json, csv, raw and avro-confluent, none to two for
// debezium-json (a changelog); a null (nil) value gives no row. A bad
// record is a [*format.ParseError] whose position is within the record.
type recordCodec interface {
	decode(b []byte, out []types.Row) ([]types.Row, error)
	// encode appends the bytes of row r (whose kind a changelog format
	// writes) to dst.
	encode(dst []byte, r types.Row) ([]byte, error)
	// changelog is the changelog the format reads (zero: insert-only).
	changelog() types.ChangelogMode
}

// newRecordCodec returns the codec of format f over columns sch, for the
// key (key) or the value of topic's records.
func newRecordCodec(f *kafkaFormat, sch types.Schema, topic string, key bool) (recordCodec, error) {
	switch f.name {
	case fmtJSON:
		d, err := format.NewJSONRecordDecoder(sch, format.JSONSourceOptions{
			FailOnMissingField: f.opts["fail-on-missing-field"] == "true",
			Parse:              textparse.Options{TimestampFormat: f.opts["timestamp-format.standard"]},
		})
		if err != nil {
			return nil, err
		}
		return &jsonCodec{sch: sch, dec: d, iso: f.opts["timestamp-format.standard"] == "ISO-8601"}, nil
	case fmtCSV:
		nl, nlSet := f.opts["null-literal"]
		opts := format.CSVSourceOptions{NullLiteral: nl, EmptyIsNull: nlSet && nl == "", DisableQuoteCharacter: f.opts["disable-quote-character"] == "true"}
		var err error
		if opts.FieldDelimiter, err = charValue(f.prefix+"field-delimiter", f.opts["field-delimiter"]); err != nil {
			return nil, err
		}
		if opts.QuoteCharacter, err = charValue(f.prefix+"quote-character", f.opts["quote-character"]); err != nil {
			return nil, err
		}
		d, err := format.NewCSVRecordDecoder(sch, opts)
		if err != nil {
			return nil, err
		}
		return &csvCodec{sch: sch, dec: d}, nil
	case fmtRaw:
		return &rawCodec{typ: sch.Columns[0].Type, little: f.opts["endianness"] == "little-endian"}, nil
	case fmtDebezium:
		d, err := format.NewJSONRecordDecoder(sch, format.JSONSourceOptions{Parse: textparse.Options{TimestampFormat: f.opts["timestamp-format.standard"]}})
		if err != nil {
			return nil, err
		}
		return &debeziumCodec{json: jsonCodec{sch: sch, dec: d, iso: f.opts["timestamp-format.standard"] == "ISO-8601"}, schemaInclude: f.opts["schema-include"] == "true"}, nil
	case fmtAvroConfl:
		return newAvroCodec(f, sch, topic, key) // kafka_avro.go
	}
	return nil, fmt.Errorf("unsupported format '%s'", f.name)
}

func charValue(key, v string) (byte, error) {
	switch {
	case v == "":
		return 0, nil
	case v == `\t`:
		return '\t', nil
	case len(v) == 1:
		return v[0], nil
	}
	return 0, fmt.Errorf("option '%s' must be one character, not '%s'", key, v)
}

// jsonCodec is Flink's json format: one object per record.
type jsonCodec struct {
	sch types.Schema
	dec *format.RecordDecoder
	iso bool
}

func (c *jsonCodec) decode(b []byte, out []types.Row) ([]types.Row, error) {
	return decodeOne(c.dec, b, out)
}

// decodeOne appends the row of a record that holds one (nil: none).
func decodeOne(d *format.RecordDecoder, b []byte, out []types.Row) ([]types.Row, error) {
	if b == nil {
		return out, nil
	}
	r, err := d.Decode(b)
	if err != nil {
		return out, err
	}
	return append(out, r), nil
}

func (c *jsonCodec) encode(dst []byte, r types.Row) ([]byte, error) {
	return format.AppendJSONRecord(dst, c.sch, r, c.iso), nil
}

func (c *jsonCodec) changelog() types.ChangelogMode { return types.ChangelogMode{} }

// csvCodec is Flink's csv format: one CSV record per Kafka record.
type csvCodec struct {
	sch  types.Schema
	dec  *format.RecordDecoder
	cell []byte
}

func (c *csvCodec) decode(b []byte, out []types.Row) ([]types.Row, error) {
	return decodeOne(c.dec, b, out)
}

func (c *csvCodec) encode(dst []byte, r types.Row) ([]byte, error) {
	dst, c.cell = format.AppendCSVRecord(dst, c.sch, r, c.cell)
	return dst, nil
}

func (c *csvCodec) changelog() types.ChangelogMode { return types.ChangelogMode{} }

// rawCodec is Flink's raw format: the bytes are the one column's value
// (UTF-8 text, the bytes themselves, or a number in the given byte order).
type rawCodec struct {
	typ    types.Type
	little bool
}

// byteOrder reads and appends numbers in one byte order.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

func (c *rawCodec) order() byteOrder {
	if c.little {
		return binary.LittleEndian
	}
	return binary.BigEndian
}

func (c *rawCodec) decode(b []byte, out []types.Row) ([]types.Row, error) {
	var v any
	if b != nil {
		var err error
		if v, err = c.value(b); err != nil {
			return out, &format.ParseError{Line: 1, Col: 1, Msg: err.Error()}
		}
	}
	return append(out, types.Row{Kind: types.Insert, Fields: []any{v}}), nil
}

// check returns the error decode would return for b, without the row.
func (c *rawCodec) check(b []byte) error {
	switch {
	case b == nil:
		return nil
	case c.typ.Kind == types.KindChar || c.typ.Kind == types.KindVarChar:
		if !utf8.Valid(b) {
			_, err := c.decode(b, nil)
			return err
		}
		return nil
	}
	_, err := c.decode(b, nil)
	return err
}

func (c *rawCodec) value(b []byte) (any, error) {
	o := c.order()
	size := func(n int) error {
		if len(b) != n {
			return fmt.Errorf("the raw format reads %s from %d bytes, not %d", c.typ, n, len(b))
		}
		return nil
	}
	switch c.typ.Kind {
	case types.KindChar, types.KindVarChar:
		if !utf8.Valid(b) {
			return nil, errors.New("invalid UTF-8 in a raw STRING value")
		}
		return string(b), nil
	case types.KindBinary, types.KindVarBinary:
		return bytes.Clone(b), nil
	case types.KindBoolean:
		if err := size(1); err != nil {
			return nil, err
		}
		return b[0] != 0, nil
	case types.KindTinyInt:
		if err := size(1); err != nil {
			return nil, err
		}
		return int64(int8(b[0])), nil
	case types.KindSmallInt:
		if err := size(2); err != nil {
			return nil, err
		}
		return int64(int16(o.Uint16(b))), nil
	case types.KindInt:
		if err := size(4); err != nil {
			return nil, err
		}
		return int64(int32(o.Uint32(b))), nil
	case types.KindBigInt:
		if err := size(8); err != nil {
			return nil, err
		}
		return int64(o.Uint64(b)), nil
	case types.KindFloat:
		if err := size(4); err != nil {
			return nil, err
		}
		return float64(math.Float32frombits(o.Uint32(b))), nil
	case types.KindDouble:
		if err := size(8); err != nil {
			return nil, err
		}
		return math.Float64frombits(o.Uint64(b)), nil
	}
	return nil, fmt.Errorf("the raw format cannot read %s", c.typ)
}

func (c *rawCodec) encode(dst []byte, r types.Row) ([]byte, error) {
	v := r.Fields[0]
	o := c.order()
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		return append(dst, x...), nil
	case []byte:
		return append(dst, x...), nil
	case bool:
		if x {
			return append(dst, 1), nil
		}
		return append(dst, 0), nil
	case int64:
		switch c.typ.Kind {
		case types.KindTinyInt:
			return append(dst, byte(x)), nil
		case types.KindSmallInt:
			return o.AppendUint16(dst, uint16(x)), nil
		case types.KindInt:
			return o.AppendUint32(dst, uint32(x)), nil
		}
		return o.AppendUint64(dst, uint64(x)), nil
	case float64:
		if c.typ.Kind == types.KindFloat {
			return o.AppendUint32(dst, math.Float32bits(float32(x))), nil
		}
		return o.AppendUint64(dst, math.Float64bits(x)), nil
	}
	return nil, fmt.Errorf("the raw format cannot write %T", v)
}

func (c *rawCodec) changelog() types.ChangelogMode { return types.ChangelogMode{} }

// debeziumCodec is Flink's debezium-json format: a change event
// {"before": row, "after": row, "op": "c" | "r" | "u" | "d"} (inside
// {"schema": ..., "payload": ...} with 'debezium-json.schema-include') is
// +I after (c, r), -U before and +U after (u), -D before (d). A null value
// (a tombstone) is no change. Written: +I and +U as {"before": null,
// "after": row, "op": "c"}, -U and -D as {"before": row, "after": null,
// "op": "d"}, as Flink's DebeziumJsonSerializationSchema writes them.
type debeziumCodec struct {
	json          jsonCodec
	schemaInclude bool
}

type debeziumEvent struct {
	Before  json.RawMessage `json:"before"`
	After   json.RawMessage `json:"after"`
	Op      *string         `json:"op"`
	Payload json.RawMessage `json:"payload"`
}

func isNullJSON(m json.RawMessage) bool {
	return len(m) == 0 || string(bytes.TrimSpace(m)) == "null"
}

func (c *debeziumCodec) decode(b []byte, out []types.Row) ([]types.Row, error) {
	if b == nil {
		return out, nil
	}
	var ev debeziumEvent
	if err := json.Unmarshal(b, &ev); err != nil {
		return out, &format.ParseError{Line: 1, Col: 1, Msg: "not a Debezium JSON event: " + err.Error()}
	}
	if c.schemaInclude {
		if isNullJSON(ev.Payload) {
			return out, &format.ParseError{Line: 1, Col: 1, Msg: `no "payload" field, which 'debezium-json.schema-include' = 'true' expects; set it to 'false' for events without a schema`}
		}
		payload := ev.Payload
		ev = debeziumEvent{}
		if err := json.Unmarshal(payload, &ev); err != nil {
			return out, &format.ParseError{Line: 1, Col: 1, Msg: "not a Debezium JSON payload: " + err.Error()}
		}
	}
	if ev.Op == nil {
		return out, &format.ParseError{Line: 1, Col: 1, Msg: `no "op" field: not a Debezium JSON event` + schemaHint(ev, c.schemaInclude)}
	}
	row := func(m json.RawMessage, kind types.RowKind, what string) error {
		if isNullJSON(m) {
			msg := fmt.Sprintf(`the "%s" field of a %s event is null`, what, *ev.Op)
			if *ev.Op == "u" && what == "before" {
				msg = `The "before" field of UPDATE message is null, if you are using Debezium Postgres Connector, please check the Postgres table has been set REPLICA IDENTITY to FULL level.`
			}
			return &format.ParseError{Line: 1, Col: 1, Msg: msg}
		}
		r, err := c.json.dec.Decode(m)
		if err != nil {
			var pe *format.ParseError
			if errors.As(err, &pe) {
				pe.Msg = what + ": " + pe.Msg
			}
			return err
		}
		r.Kind = kind
		out = append(out, r)
		return nil
	}
	var err error
	switch *ev.Op {
	case "c", "r":
		err = row(ev.After, types.Insert, "after")
	case "u":
		if err = row(ev.Before, types.UpdateBefore, "before"); err == nil {
			err = row(ev.After, types.UpdateAfter, "after")
		}
	case "d":
		err = row(ev.Before, types.Delete, "before")
	default:
		err = &format.ParseError{Line: 1, Col: 1, Msg: fmt.Sprintf(`unknown "op" '%s' (Debezium's ops are c, r, u and d)`, *ev.Op)}
	}
	return out, err
}

// schemaHint says why an event with a schema lacks "op".
func schemaHint(ev debeziumEvent, include bool) string {
	if !include && !isNullJSON(ev.Payload) {
		return `; it has a "payload": set 'debezium-json.schema-include' = 'true'`
	}
	return ""
}

func (c *debeziumCodec) encode(dst []byte, r types.Row) ([]byte, error) {
	body := r
	body.Kind = types.Insert
	switch r.Kind {
	case types.Insert, types.UpdateAfter:
		dst = append(dst, `{"before":null,"after":`...)
		dst, _ = c.json.encode(dst, body)
		return append(dst, `,"op":"c"}`...), nil
	default:
		dst = append(dst, `{"before":`...)
		dst, _ = c.json.encode(dst, body)
		return append(dst, `,"after":null,"op":"d"}`...), nil
	}
}

func (c *debeziumCodec) changelog() types.ChangelogMode {
	return types.NewChangelogMode(types.Insert, types.UpdateBefore, types.UpdateAfter, types.Delete)
}
