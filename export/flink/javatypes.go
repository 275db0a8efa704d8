package flink

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/types"
)

func typeName(t *types.Type) string {
	if t == nil {
		return "(none)"
	}
	return t.String()
}

// javaClass is the Java class, Flink's default conversion, of a type
// the bridge converts, "" otherwise: of an argument (input) or of the
// output. A MAP is not given to JavaScript: ptfsh gives a Map in an order
// that Flink's HashMap does not keep.
func javaClass(t types.Type, input bool) string {
	switch t.Kind {
	case types.KindBoolean:
		return "Boolean"
	case types.KindTinyInt:
		return "Byte"
	case types.KindSmallInt:
		return "Short"
	case types.KindInt:
		return "Integer"
	case types.KindBigInt:
		return "Long"
	case types.KindFloat:
		return "Float"
	case types.KindDouble:
		return "Double"
	case types.KindVarChar:
		if t.Length == types.MaxLength {
			return "String"
		}
	case types.KindDecimal:
		return "java.math.BigDecimal"
	case types.KindTimestamp:
		return "java.time.LocalDateTime"
	case types.KindTimestampLTZ:
		return "java.time.Instant"
	case types.KindDate:
		return "java.time.LocalDate"
	case types.KindIntervalDayTime:
		return "java.time.Duration"
	case types.KindIntervalYearMonth:
		return "java.time.Period"
	case types.KindDescriptor:
		if input {
			return "org.apache.flink.types.ColumnList"
		}
	case types.KindArray:
		if e := javaClass(*t.Elem, input); e != "" && !strings.Contains(e, "<") {
			return e + "[]"
		}
	case types.KindMap:
		k, v := javaClass(*t.Key, input), javaClass(*t.Elem, input)
		if !input && k != "" && v != "" && t.Key.Kind != types.KindArray && t.Key.Kind != types.KindMap {
			return "java.util.Map<" + k + ", " + v + ">"
		}
	}
	return ""
}

// viewClass is the Java class of an element, key or value of a ListView
// or MapView entry: the types whose values GraalJS and Flink exchange as
// they are; "" for the others.
func viewClass(t types.Type) string {
	switch t.Kind {
	case types.KindBoolean, types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt,
		types.KindFloat, types.KindDouble, types.KindVarChar:
		return javaClass(t, true)
	}
	return ""
}

// viewElemClass is the Java class of an element of a ListView or a value
// of a MapView, "" for a type the bridge does not convert: a type of
// viewClass, another type javaClass converts (DECIMAL, TIMESTAMP,
// ARRAY, ...) or a ROW of such types (Row). A MAP is not: ptfsh gives
// JavaScript a Map in an order that Flink's HashMap does not keep.
func viewElemClass(t types.Type) string {
	if c := viewClass(t); c != "" {
		return c
	}
	if t.Kind == types.KindMap || containsMap(t) {
		return ""
	}
	if t.Kind == types.KindRow {
		for _, f := range t.Fields {
			if viewElemClass(f.Type) == "" {
				return ""
			}
		}
		return "Row"
	}
	if t.Kind == types.KindArray && t.Elem.Kind == types.KindRow {
		if viewElemClass(*t.Elem) == "" {
			return ""
		}
		return "Row[]"
	}
	return javaClass(t, false)
}

// containsMap reports whether t holds a MAP at any depth.
func containsMap(t types.Type) bool {
	switch t.Kind {
	case types.KindMap:
		return true
	case types.KindArray:
		return containsMap(*t.Elem)
	case types.KindRow:
		for _, f := range t.Fields {
			if containsMap(f.Type) {
				return true
			}
		}
	}
	return false
}

// kindName is the bridge's name for a type javaClass supports: STRING,
// INT, ..., TIMESTAMP, TIMESTAMP_LTZ, DATE, INTERVAL_DT, DECIMAL(p,s),
// ARRAY<elem>, MAP<key,value>, without spaces, and for a ROW (of a view's
// elements) ROW<name kind,...>, each name escaped as a URL's query
// (url.QueryEscape, which JsFunction undoes with URLDecoder).
func kindName(t types.Type) string {
	switch t.Kind {
	case types.KindRow:
		fields := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			fields[i] = url.QueryEscape(f.Name) + " " + kindName(f.Type)
		}
		return "ROW<" + strings.Join(fields, ",") + ">"
	case types.KindVarChar:
		return "STRING"
	case types.KindTimestamp:
		return "TIMESTAMP"
	case types.KindTimestampLTZ:
		return "TIMESTAMP_LTZ"
	case types.KindIntervalDayTime:
		return "INTERVAL_DT"
	case types.KindIntervalYearMonth:
		return "INTERVAL_YM"
	case types.KindDecimal:
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Length, t.Scale)
	case types.KindArray:
		return "ARRAY<" + kindName(*t.Elem) + ">"
	case types.KindMap:
		return "MAP<" + kindName(*t.Key) + "," + kindName(*t.Elem) + ">"
	default:
		return strings.Fields(t.Nullable().String())[0]
	}
}

// checkType describes t for the bridge's check of typed state (fits, in
// JsFunction's WRAPPER), which takes what ptfsh's conversion of a value
// to t takes: a name for a scalar type ("BOOLEAN", "TINYINT", ...,
// "DOUBLE", "STRING", "DECIMAL", "TIMEPOINT" for DATE and TIMESTAMP(_LTZ),
// "TIME", "INTERVAL_DT", "INTERVAL_YM", "BYTES", "ANY" for the others),
// {"array": elem}, {"map": [key, value]} or {"row": [[name, type], ...]}.
func checkType(t types.Type) any {
	switch t.Kind {
	case types.KindBoolean:
		return "BOOLEAN"
	case types.KindTinyInt:
		return "TINYINT"
	case types.KindSmallInt:
		return "SMALLINT"
	case types.KindInt:
		return "INT"
	case types.KindBigInt:
		return "BIGINT"
	case types.KindDecimal:
		return "DECIMAL"
	case types.KindFloat, types.KindDouble:
		return "DOUBLE"
	case types.KindChar, types.KindVarChar:
		return "STRING"
	case types.KindDate, types.KindTimestamp, types.KindTimestampLTZ:
		return "TIMEPOINT"
	case types.KindTime:
		return "TIME"
	case types.KindIntervalDayTime:
		return "INTERVAL_DT"
	case types.KindIntervalYearMonth:
		return "INTERVAL_YM"
	case types.KindBinary, types.KindVarBinary:
		return "BYTES"
	case types.KindArray:
		return map[string]any{"array": checkType(*t.Elem)}
	case types.KindMap:
		return map[string]any{"map": []any{checkType(*t.Key), checkType(*t.Elem)}}
	case types.KindRow:
		fields := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			fields[i] = []any{f.Name, checkType(f.Type)}
		}
		return map[string]any{"row": fields, "type": t.String()}
	}
	return "ANY"
}

// flinkType is t as Flink's type parser reads it in @DataTypeHint:
// Type.String, with the backquotes in the names of ROW fields (at any
// depth) doubled.
func flinkType(t types.Type) string {
	notNull := ""
	if t.NotNull {
		notNull = " NOT NULL"
	}
	switch t.Kind {
	case types.KindArray:
		return "ARRAY<" + flinkType(*t.Elem) + ">" + notNull
	case types.KindMap:
		return "MAP<" + flinkType(*t.Key) + ", " + flinkType(*t.Elem) + ">" + notNull
	case types.KindRow:
	default:
		return t.String()
	}
	var b strings.Builder
	b.WriteString("ROW<")
	for i, f := range t.Fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(sqlIdent(f.Name) + " " + flinkType(f.Type))
	}
	b.WriteString(">")
	if t.NotNull {
		b.WriteString(" NOT NULL")
	}
	return b.String()
}
