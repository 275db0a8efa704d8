package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ptfsh/ptfsh/runtime/connector/kafka"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// avroCodec is Flink's avro-confluent format: a record is Confluent's wire
// format (a zero byte, the writer schema's id in the registry, the Avro
// binary value). Reading looks the writer's schema up by id and takes the
// columns from its fields by name; writing registers the table's schema
// (as Flink's AvroSchemaConverter derives it from the columns, or the
// 'avro-confluent.schema' option) under the subject ('avro-confluent.subject',
// default '<topic>-value' or '<topic>-key') and writes with its id.
type avroCodec struct {
	reg     *kafka.Registry
	sch     types.Schema
	subject string
	writer  *kafka.AvroSchema
	id      int // the writer schema's id, once registered
}

// registries are the registry clients of the session by URL, so that a
// schema is fetched once.
var registries = struct {
	sync.Mutex
	m map[string]*kafka.Registry
}{m: map[string]*kafka.Registry{}}

func newAvroCodec(f *kafkaFormat, sch types.Schema, topic string, key bool) (recordCodec, error) {
	registries.Lock()
	reg, ok := registries.m[f.opts["url"]]
	if !ok {
		var err error
		if reg, err = kafka.NewRegistry(f.opts["url"]); err != nil {
			registries.Unlock()
			return nil, err
		}
		registries.m[f.opts["url"]] = reg
	}
	registries.Unlock()
	c := &avroCodec{reg: reg, sch: sch, subject: f.opts["subject"]}
	if c.subject == "" {
		c.subject = topic + "-value"
		if key {
			c.subject = topic + "-key"
		}
	}
	text := f.opts["schema"]
	if text == "" {
		text = AvroSchemaOf(sch)
	}
	var err error
	if c.writer, err = kafka.ParseAvro(text); err != nil {
		return nil, fmt.Errorf("option '%sschema': %w", f.prefix, err)
	}
	return c, nil
}

// AvroSchemaOf is the Avro schema Flink's AvroSchemaConverter derives from
// a table's columns: a record named org.apache.flink.avro.generated.record
// whose nullable fields are unions with null first (default null);
// TINYINT, SMALLINT and INT are int, BIGINT long, DATE an int of logical
// type date, TIME time-millis, TIMESTAMP and TIMESTAMP_LTZ a long of
// timestamp-millis (precision up to 3) or timestamp-micros, DECIMAL bytes
// of logical type decimal, a nested ROW a record named after its path.
func AvroSchemaOf(sch types.Schema) string {
	fields := make([]types.Field, len(sch.Columns))
	for i, c := range sch.Columns {
		fields[i] = types.Field{Name: c.Name, Type: c.Type}
	}
	b, _ := json.Marshal(avroRecord("org.apache.flink.avro.generated.record", fields))
	return string(b)
}

func avroRecord(name string, fields []types.Field) map[string]any {
	var fs []any
	for _, f := range fields {
		t := avroType(f.Type, name+"_"+f.Name)
		field := map[string]any{"name": f.Name, "type": t}
		if !f.Type.NotNull {
			field["default"] = nil
		}
		fs = append(fs, field)
	}
	if fs == nil {
		fs = []any{}
	}
	short := name[strings.LastIndexByte(name, '.')+1:]
	rec := map[string]any{"type": "record", "name": short, "fields": fs}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		rec["namespace"] = name[:i]
	}
	return rec
}

// avroType is the Avro type of a SQL type, nullable as the type is.
func avroType(t types.Type, name string) any {
	var s any
	switch t.Kind {
	case types.KindBoolean:
		s = "boolean"
	case types.KindTinyInt, types.KindSmallInt, types.KindInt:
		s = "int"
	case types.KindBigInt:
		s = "long"
	case types.KindFloat:
		s = "float"
	case types.KindDouble:
		s = "double"
	case types.KindChar, types.KindVarChar:
		s = "string"
	case types.KindBinary, types.KindVarBinary:
		s = "bytes"
	case types.KindDecimal:
		s = map[string]any{"type": "bytes", "logicalType": "decimal", "precision": t.Length, "scale": t.Scale}
	case types.KindDate:
		s = map[string]any{"type": "int", "logicalType": "date"}
	case types.KindTime:
		s = map[string]any{"type": "int", "logicalType": "time-millis"}
	case types.KindTimestamp, types.KindTimestampLTZ:
		lt := "timestamp-millis"
		if t.Length > 3 {
			lt = "timestamp-micros"
		}
		s = map[string]any{"type": "long", "logicalType": lt}
	case types.KindArray:
		s = map[string]any{"type": "array", "items": avroType(*t.Elem, name)}
	case types.KindMap:
		s = map[string]any{"type": "map", "values": avroType(*t.Elem, name)}
	case types.KindRow:
		full := name
		if !strings.Contains(full, ".") {
			full = "org.apache.flink.avro.generated." + full
		}
		s = avroRecord(full, t.Fields)
	default:
		s = "string"
	}
	if t.NotNull {
		return s
	}
	return []any{"null", s}
}

// avroSupports reports why a column's type cannot be Avro, or "".
func avroSupports(t types.Type) string {
	switch t.Kind {
	case types.KindIntervalDayTime, types.KindIntervalYearMonth, types.KindDescriptor:
		return fmt.Sprintf("the avro-confluent format cannot carry %s", t)
	case types.KindMap:
		if t.Key.Kind != types.KindVarChar && t.Key.Kind != types.KindChar {
			return fmt.Sprintf("Avro maps have string keys, not %s", t.Key)
		}
		return avroSupports(*t.Elem)
	case types.KindArray:
		return avroSupports(*t.Elem)
	case types.KindRow:
		for _, f := range t.Fields {
			if why := avroSupports(f.Type); why != "" {
				return why
			}
		}
	}
	return ""
}

func (c *avroCodec) decode(b []byte, out []types.Row) ([]types.Row, error) {
	if b == nil {
		return out, nil
	}
	id, body, err := kafka.SplitConfluent(b)
	if err != nil {
		return out, &format.ParseError{Line: 1, Col: 1, Msg: err.Error()}
	}
	ws, err := c.reg.ByID(context.Background(), id)
	if err != nil {
		if errors.Is(err, kafka.ErrNoSchema) {
			return out, &format.ParseError{Line: 1, Col: 2, Msg: err.Error()}
		}
		return out, err
	}
	row, err := avroRow(ws, body, c.sch, id)
	if err != nil {
		return out, err
	}
	return append(out, row), nil
}

// avroRow decodes Avro bytes of writer schema ws (id in the registry) into
// a row of sch, taking the columns from the record's fields by name.
func avroRow(ws *kafka.AvroSchema, body []byte, sch types.Schema, id int) (types.Row, error) {
	v, err := ws.Decode(body)
	if err != nil {
		return types.Row{}, &format.ParseError{Line: 1, Col: 6, Msg: fmt.Sprintf("not an Avro value of schema id %d: %v", id, err)}
	}
	rec, ok := v.(map[string]any)
	if !ok {
		return types.Row{}, &format.ParseError{Line: 1, Col: 6, Msg: fmt.Sprintf("schema id %d is not a record", id)}
	}
	fields := make([]any, sch.Len())
	for i, col := range sch.Columns {
		x, ok := rec[col.Name]
		if !ok || x == nil {
			if col.Type.NotNull {
				return types.Row{}, &format.ParseError{Line: 1, Col: 6, Column: col.Name, Msg: fmt.Sprintf("no value for %s in schema id %d", col.Type, id)}
			}
			continue
		}
		if fields[i], err = fromAvro(x, col.Type); err != nil {
			return types.Row{}, &format.ParseError{Line: 1, Col: 6, Column: col.Name, Msg: err.Error()}
		}
	}
	return types.Row{Kind: types.Insert, Fields: fields}, nil
}

// fromAvro converts a decoded Avro value to the Go value of SQL type t.
func fromAvro(x any, t types.Type) (any, error) {
	if x == nil {
		return nil, nil
	}
	bad := func() (any, error) { return nil, fmt.Errorf("cannot read the Avro value %v (%T) as %s", x, x, t) }
	switch t.Kind {
	case types.KindBoolean:
		if b, ok := x.(bool); ok {
			return b, nil
		}
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		var n int64
		switch v := x.(type) {
		case int32:
			n = int64(v)
		case int64:
			n = v
		default:
			return bad()
		}
		if lo, hi := t.Kind.IntegerRange(); n < lo || n > hi {
			return nil, fmt.Errorf("%d is out of the range of %s", n, t)
		}
		return n, nil
	case types.KindFloat, types.KindDouble:
		switch v := x.(type) {
		case float32:
			return float64(v), nil
		case float64:
			return v, nil
		case int32:
			return float64(v), nil
		case int64:
			return float64(v), nil
		}
	case types.KindChar, types.KindVarChar:
		if s, ok := x.(string); ok {
			return s, nil
		}
	case types.KindBinary, types.KindVarBinary:
		if b, ok := x.([]byte); ok {
			return b, nil
		}
	case types.KindDecimal:
		r, ok := x.(*big.Rat)
		if !ok {
			return bad()
		}
		scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale)), nil)))
		if !scaled.IsInt() {
			return nil, fmt.Errorf("%s has more than %d decimals", r.FloatString(10), t.Scale)
		}
		return types.Decimal{Unscaled: new(big.Int).Set(scaled.Num()), Scale: t.Scale}, nil
	case types.KindDate:
		if tm, ok := x.(time.Time); ok {
			return types.Date(tm.Unix() / 86400), nil
		}
	case types.KindTime:
		switch v := x.(type) {
		case time.Duration:
			return types.TimeOfDay(v), nil
		case time.Time:
			return types.TimeOfDay(v.Sub(v.Truncate(24 * time.Hour))), nil
		}
	case types.KindTimestamp, types.KindTimestampLTZ:
		var ms int64
		var nano int32
		switch v := x.(type) {
		case time.Time:
			ms = v.UnixMilli()
			nano = int32(v.Nanosecond() % 1e6)
		case int64:
			ms = v
		default:
			return bad()
		}
		if t.Kind == types.KindTimestamp {
			return types.LocalDateTime{Millis: ms, NanoOfMilli: nano}, nil
		}
		return types.Instant{Millis: ms, NanoOfMilli: nano}, nil
	case types.KindArray:
		xs, ok := x.([]any)
		if !ok {
			return bad()
		}
		out := make([]any, len(xs))
		for i, e := range xs {
			v, err := fromAvro(e, *t.Elem)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case types.KindMap:
		m, ok := x.(map[string]any)
		if !ok {
			return bad()
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := &types.Map{}
		for _, k := range keys {
			v, err := fromAvro(m[k], *t.Elem)
			if err != nil {
				return nil, err
			}
			out.Keys = append(out.Keys, k)
			out.Values = append(out.Values, v)
		}
		return out, nil
	case types.KindRow:
		m, ok := x.(map[string]any)
		if !ok {
			return bad()
		}
		fields := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			v, err := fromAvro(m[f.Name], f.Type)
			if err != nil {
				return nil, err
			}
			fields[i] = v
		}
		return types.Row{Kind: types.Insert, Fields: fields}, nil
	}
	return bad()
}

// toAvro converts the Go value of SQL type t to what the Avro encoder takes.
func toAvro(v any, t types.Type) any {
	switch x := v.(type) {
	case nil:
		return nil
	case types.Decimal:
		r := new(big.Rat).SetInt(x.Unscaled)
		return r.Quo(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.Scale)), nil)))
	case types.Date:
		return time.Unix(int64(x)*86400, 0).UTC()
	case types.TimeOfDay:
		return time.Duration(x)
	case types.LocalDateTime:
		return time.UnixMilli(x.Millis).Add(time.Duration(x.NanoOfMilli)).UTC()
	case types.Instant:
		return time.UnixMilli(x.Millis).Add(time.Duration(x.NanoOfMilli)).UTC()
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = toAvro(e, *t.Elem)
		}
		return out
	case *types.Map:
		out := make(map[string]any, x.Len())
		for i, k := range x.Keys {
			ks, _ := k.(string)
			out[ks] = toAvro(x.Values[i], *t.Elem)
		}
		return out
	case types.Row:
		out := make(map[string]any, len(t.Fields))
		for i, f := range t.Fields {
			out[f.Name] = toAvro(x.Fields[i], f.Type)
		}
		return out
	}
	return v
}

func (c *avroCodec) encode(dst []byte, r types.Row) ([]byte, error) {
	if c.id == 0 {
		id, err := c.reg.Register(context.Background(), c.subject, c.writer)
		if err != nil {
			return nil, err
		}
		c.id = id
	}
	rec := make(map[string]any, len(r.Fields))
	for i, col := range c.sch.Columns {
		rec[col.Name] = toAvro(r.Fields[i], col.Type)
	}
	dst = kafka.ConfluentHeader(dst, c.id)
	out, err := c.writer.Encode(dst, rec)
	if err != nil {
		return nil, fmt.Errorf("encoding a row with the Avro schema of subject '%s': %w", c.subject, err)
	}
	return out, nil
}

func (c *avroCodec) changelog() types.ChangelogMode { return types.ChangelogMode{} }
