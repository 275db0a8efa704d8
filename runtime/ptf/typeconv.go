package ptf

import (
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// ParseType parses a type string as written in SQL or in a JS declaration,
// e.g. "ROW<url STRING, click_count BIGINT>" or "INT NOT NULL".
func ParseType(s string) (types.Type, error) {
	te, err := sqlmini.ParseType(s)
	if err != nil {
		return types.Type{}, err
	}
	return TypeFromAST(te)
}

// TypeFromAST converts a parsed type to a Type.
func TypeFromAST(te *sqlmini.TypeExpr) (types.Type, error) {
	t, err := typeFromAST(te)
	if err != nil {
		return types.Type{}, err
	}
	t.NotNull = te.NotNull
	return t, nil
}

func typeFromAST(te *sqlmini.TypeExpr) (types.Type, error) {
	switch {
	case te.Interval != nil:
		from := types.SingularUnit(te.Interval.From)
		switch from {
		case "YEAR", "MONTH":
			return types.Type{Kind: types.KindIntervalYearMonth}, nil
		case "DAY", "HOUR", "MINUTE", "SECOND":
			return types.Type{Kind: types.KindIntervalDayTime}, nil
		}
		return types.Type{}, sqlmini.Errorf(te.Interval.Pos, "unknown interval unit %s", te.Interval.From)
	case te.Array != nil:
		e, err := TypeFromAST(te.Array)
		if err != nil {
			return types.Type{}, err
		}
		return types.ArrayOf(e), nil
	case te.Map != nil:
		k, err := TypeFromAST(te.Map.Key)
		if err != nil {
			return types.Type{}, err
		}
		v, err := TypeFromAST(te.Map.Value)
		if err != nil {
			return types.Type{}, err
		}
		return types.MapOf(k, v), nil
	case te.Row != nil:
		fields := make([]types.Field, len(te.Row))
		for i, f := range te.Row {
			ft, err := TypeFromAST(f.Type)
			if err != nil {
				return types.Type{}, err
			}
			fields[i] = types.Field{Name: string(f.Name.Value), Type: ft}
		}
		return types.NewRowType(fields...), nil
	}
	params := make([]int, len(te.Params))
	for i, p := range te.Params {
		n, err := strconv.Atoi(p)
		if err != nil {
			return types.Type{}, sqlmini.Errorf(te.Pos, "invalid type parameter %s", p)
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
	var t types.Type
	switch name {
	case "BOOLEAN", "BOOL":
		t = types.Type{Kind: types.KindBoolean}
	case "TINYINT":
		t = types.Type{Kind: types.KindTinyInt}
	case "SMALLINT":
		t = types.Type{Kind: types.KindSmallInt}
	case "INT", "INTEGER":
		t = types.Type{Kind: types.KindInt}
	case "BIGINT":
		t = types.Type{Kind: types.KindBigInt}
	case "FLOAT", "REAL":
		t = types.Type{Kind: types.KindFloat}
	case "DOUBLE":
		t = types.Type{Kind: types.KindDouble}
	case "DECIMAL", "DEC", "NUMERIC":
		t = types.Type{Kind: types.KindDecimal, Length: param(10)}
		if len(params) > 1 {
			t.Scale = params[1]
		}
		if t.Length < 1 || t.Length > 38 || t.Scale < 0 || t.Scale > t.Length {
			return types.Type{}, sqlmini.Errorf(te.Pos, "invalid DECIMAL(%d, %d): precision must be 1 to 38 and scale 0 to precision", t.Length, t.Scale)
		}
	case "CHAR":
		t = types.Type{Kind: types.KindChar, Length: param(1)}
	case "VARCHAR":
		// Flink's type system: VARCHAR and VARBINARY without a length are
		// the longest (FlinkTypeSystem.getDefaultPrecision), CHAR and
		// BINARY one long.
		t = types.Type{Kind: types.KindVarChar, Length: param(types.MaxLength)}
	case "STRING":
		t = types.TypeString
	case "BINARY":
		t = types.Type{Kind: types.KindBinary, Length: param(1)}
	case "VARBINARY":
		t = types.Type{Kind: types.KindVarBinary, Length: param(types.MaxLength)}
	case "BYTES":
		t = types.TypeBytes
	case "DATE":
		t = types.Type{Kind: types.KindDate}
	case "TIME":
		t = types.Type{Kind: types.KindTime, Length: param(0)}
	case "TIMESTAMP":
		t = types.Type{Kind: types.KindTimestamp, Length: param(6)}
		if te.LTZ {
			t.Kind = types.KindTimestampLTZ
		}
	case "TIMESTAMP_LTZ":
		t = types.Type{Kind: types.KindTimestampLTZ, Length: param(6)}
	case "DESCRIPTOR":
		t = types.TypeDescriptor
	default:
		return types.Type{}, sqlmini.Errorf(te.Pos, "unknown data type %s", te.Name)
	}
	if t.IsTime() || t.Kind == types.KindTime {
		if t.Length < 0 || t.Length > 9 {
			return types.Type{}, sqlmini.Errorf(te.Pos, "%s precision must be 0 to 9, not %d", name, t.Length)
		}
	}
	return t, nil
}
