package runtime

import (
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/sqlmini"
)

// ParseType parses a type string as written in SQL or in a JS declaration,
// e.g. "ROW<url STRING, click_count BIGINT>" or "INT NOT NULL".
func ParseType(s string) (Type, error) {
	te, err := sqlmini.ParseType(s)
	if err != nil {
		return Type{}, err
	}
	return TypeFromAST(te)
}

// TypeFromAST converts a parsed type to a Type.
func TypeFromAST(te *sqlmini.TypeExpr) (Type, error) {
	t, err := typeFromAST(te)
	if err != nil {
		return Type{}, err
	}
	t.NotNull = te.NotNull
	return t, nil
}

func typeFromAST(te *sqlmini.TypeExpr) (Type, error) {
	switch {
	case te.Interval != nil:
		from := singularUnit(te.Interval.From)
		switch from {
		case "YEAR", "MONTH":
			return Type{Kind: KindIntervalYearMonth}, nil
		case "DAY", "HOUR", "MINUTE", "SECOND":
			return Type{Kind: KindIntervalDayTime}, nil
		}
		return Type{}, sqlmini.Errorf(te.Interval.Pos, "unknown interval unit %s", te.Interval.From)
	case te.Array != nil:
		e, err := TypeFromAST(te.Array)
		if err != nil {
			return Type{}, err
		}
		return ArrayOf(e), nil
	case te.Map != nil:
		k, err := TypeFromAST(te.Map.Key)
		if err != nil {
			return Type{}, err
		}
		v, err := TypeFromAST(te.Map.Value)
		if err != nil {
			return Type{}, err
		}
		return MapOf(k, v), nil
	case te.Row != nil:
		fields := make([]Field, len(te.Row))
		for i, f := range te.Row {
			ft, err := TypeFromAST(f.Type)
			if err != nil {
				return Type{}, err
			}
			fields[i] = Field{Name: string(f.Name.Value), Type: ft}
		}
		return NewRowType(fields...), nil
	}
	params := make([]int, len(te.Params))
	for i, p := range te.Params {
		n, err := strconv.Atoi(p)
		if err != nil {
			return Type{}, sqlmini.Errorf(te.Pos, "invalid type parameter %s", p)
		}
		params[i] = n
	}
	param := func(def int) int {
		if len(params) > 0 {
			return params[0]
		}
		return def
	}
	name := strings.ToUpper(te.Name)
	var t Type
	switch name {
	case "BOOLEAN", "BOOL":
		t = Type{Kind: KindBoolean}
	case "TINYINT":
		t = Type{Kind: KindTinyInt}
	case "SMALLINT":
		t = Type{Kind: KindSmallInt}
	case "INT", "INTEGER":
		t = Type{Kind: KindInt}
	case "BIGINT":
		t = Type{Kind: KindBigInt}
	case "FLOAT", "REAL":
		t = Type{Kind: KindFloat}
	case "DOUBLE":
		t = Type{Kind: KindDouble}
	case "DECIMAL", "DEC", "NUMERIC":
		t = Type{Kind: KindDecimal, Length: param(10)}
		if len(params) > 1 {
			t.Scale = params[1]
		}
		if t.Length < 1 || t.Length > 38 || t.Scale < 0 || t.Scale > t.Length {
			return Type{}, sqlmini.Errorf(te.Pos, "invalid DECIMAL(%d, %d): precision must be 1 to 38 and scale 0 to precision", t.Length, t.Scale)
		}
	case "CHAR":
		t = Type{Kind: KindChar, Length: param(1)}
	case "VARCHAR":
		t = Type{Kind: KindVarChar, Length: param(1)}
	case "STRING":
		t = TypeString
	case "BINARY":
		t = Type{Kind: KindBinary, Length: param(1)}
	case "VARBINARY":
		t = Type{Kind: KindVarBinary, Length: param(1)}
	case "BYTES":
		t = TypeBytes
	case "DATE":
		t = Type{Kind: KindDate}
	case "TIME":
		t = Type{Kind: KindTime, Length: param(0)}
	case "TIMESTAMP":
		t = Type{Kind: KindTimestamp, Length: param(6)}
		if te.LTZ {
			t.Kind = KindTimestampLTZ
		}
	case "TIMESTAMP_LTZ":
		t = Type{Kind: KindTimestampLTZ, Length: param(6)}
	case "DESCRIPTOR":
		t = TypeDescriptor
	default:
		return Type{}, sqlmini.Errorf(te.Pos, "unknown data type %s", te.Name)
	}
	if t.IsTime() || t.Kind == KindTime {
		if t.Length < 0 || t.Length > 9 {
			return Type{}, sqlmini.Errorf(te.Pos, "%s precision must be 0 to 9, not %d", name, t.Length)
		}
	}
	return t, nil
}
