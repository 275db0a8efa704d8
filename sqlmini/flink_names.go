package sqlmini

import (
	"sort"
	"strings"
)

// FlinkReservedNames returns the names of st that Flink's parser refuses
// as they are written: a reserved word of Flink's (IsFlinkReserved) used
// as a plain name, not in backquotes, in st.Text. Function names, the
// units of EXTRACT, TIMESTAMPADD and TIMESTAMPDIFF and the time functions
// called without parentheses that ptfsh computes (CURRENT_TIMESTAMP,
// CURRENT_DATE, ...), which the grammar reads as names, are not. The
// other functions that Flink calls without parentheses (USER,
// CURRENT_USER, ...; FlinkNiladic) are names in ptfsh, which has no such
// functions: Flink would call the function where ptfsh reads the column,
// so they are. They come in the order of the text.
//
// The flink dialect refuses such a name (runtime/session); the export to
// Flink writes it in backquotes (QuoteFlinkReserved).
func FlinkReservedNames(st *Statement) []*Name {
	notNames := map[*Name]bool{} // function names and units
	Inspect(st, func(n any) {
		if f, ok := n.(*FuncCall); ok {
			notNames[f.Name] = true
			if f.To != nil {
				notNames[f.To] = true
			}
			// EXTRACT(YEAR FROM d), TIMESTAMPDIFF(HOUR, a, b): a unit,
			// which the grammar reads as a column.
			if len(f.Args) > 0 {
				if c := columnOf(f.Args[0]); c != nil && timeUnits[upper(string(c.Value))] {
					notNames[c] = true
				}
			}
		}
	})
	var out []*Name
	Inspect(st, func(n any) {
		switch v := n.(type) {
		case *ColumnRef:
			if len(v.Parts) == 1 && timeNiladic[upper(string(v.Parts[0].Value))] && !quotedIn(st, v.Parts[0]) {
				notNames[v.Parts[0]] = true
			}
		case *Name:
			if v == nil || notNames[v] || quotedIn(st, v) || !IsFlinkReserved(string(v.Value)) {
				return
			}
			out = append(out, v)
		}
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pos.Offset < out[j].Pos.Offset })
	return out
}

// QuoteFlinkReserved returns the first end bytes of st.Text (all of it
// when end is negative or beyond) with each name of FlinkReservedNames
// that starts there written in backquotes, as Flink's parser needs it.
// Everything else stays as written.
func QuoteFlinkReserved(st *Statement, end int) string {
	text := st.Text
	if end < 0 || end > len(text) {
		end = len(text)
	}
	var b strings.Builder
	last := 0
	for _, n := range FlinkReservedNames(st) {
		i := n.Pos.Offset - st.Pos.Offset
		w := len(n.Value)
		if i < last || i+w > end || !strings.EqualFold(text[i:i+w], string(n.Value)) {
			continue
		}
		b.WriteString(text[last:i])
		b.WriteString("`" + text[i:i+w] + "`")
		last = i + w
	}
	b.WriteString(text[last:end])
	return b.String()
}

// quotedIn reports whether name is written in backquotes in st's text.
func quotedIn(st *Statement, name *Name) bool {
	i := name.Pos.Offset - st.Pos.Offset
	return i >= 0 && i < len(st.Text) && st.Text[i] == '`'
}

// timeNiladic are the time functions called without parentheses that
// ptfsh computes (runtime/expr), which the grammar reads as column
// references: they are no names.
var timeNiladic = map[string]bool{
	"CURRENT_TIMESTAMP": true, "CURRENT_DATE": true, "CURRENT_TIME": true, "LOCALTIME": true,
	"LOCALTIMESTAMP": true,
}

// flinkNiladic are the other functions that Flink's parser reads without
// parentheses where a name stands (Calcite's context variables).
var flinkNiladic = map[string]bool{
	"CURRENT_USER": true, "SESSION_USER": true, "SYSTEM_USER": true, "USER": true,
	"CURRENT_ROLE": true, "CURRENT_PATH": true, "CURRENT_CATALOG": true, "CURRENT_SCHEMA": true,
}

// FlinkNiladic reports whether word (any case) is a function that Flink's
// parser calls, without parentheses, where the word stands as a plain
// name (USER, CURRENT_USER, ...), and that ptfsh does not have.
func FlinkNiladic(word string) bool { return flinkNiladic[upper(word)] }

// timeUnits are the units of EXTRACT, TIMESTAMPADD and TIMESTAMPDIFF.
var timeUnits = map[string]bool{
	"YEAR": true, "QUARTER": true, "MONTH": true, "WEEK": true, "DAY": true, "HOUR": true,
	"MINUTE": true, "SECOND": true, "MILLISECOND": true, "MICROSECOND": true, "NANOSECOND": true,
	"DOY": true, "DOW": true, "EPOCH": true, "DECADE": true, "CENTURY": true, "MILLENNIUM": true,
	"ISODOW": true, "ISOYEAR": true,
}

// columnOf returns the name of the unqualified column that e is, nil when
// e is anything else.
func columnOf(e *Expr) *Name {
	if e == nil || len(e.Right) > 0 || e.Left == nil || len(e.Left.Right) > 0 || e.Left.Left == nil || e.Left.Left.Pred == nil {
		return nil
	}
	p := e.Left.Left.Pred
	if p.Op != "" || p.In != nil || p.Between != nil || p.Like != nil || p.IsNull || p.NotNull || p.Truth != "" || p.Left == nil || len(p.Left.Right) > 0 {
		return nil
	}
	m := p.Left.Left
	if m == nil || len(m.Right) > 0 || m.Left == nil || m.Left.Minus || m.Left.Primary == nil || m.Left.Primary.Column == nil {
		return nil
	}
	if parts := m.Left.Primary.Column.Parts; len(parts) == 1 {
		return parts[0]
	}
	return nil
}
