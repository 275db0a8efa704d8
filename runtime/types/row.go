package types

import "strings"

// RowKind is the change a row carries in a changelog, as Flink's RowKind.
type RowKind uint8

// The four row kinds. Their order and short strings are Flink's.
const (
	Insert       RowKind = iota // +I
	UpdateBefore                // -U
	UpdateAfter                 // +U
	Delete                      // -D
)

// ShortString returns +I, -U, +U or -D.
func (k RowKind) ShortString() string {
	switch k {
	case Insert:
		return "+I"
	case UpdateBefore:
		return "-U"
	case UpdateAfter:
		return "+U"
	case Delete:
		return "-D"
	}
	return "??"
}

// String returns Flink's enum name: INSERT, UPDATE_BEFORE, UPDATE_AFTER or DELETE.
func (k RowKind) String() string {
	switch k {
	case Insert:
		return "INSERT"
	case UpdateBefore:
		return "UPDATE_BEFORE"
	case UpdateAfter:
		return "UPDATE_AFTER"
	case Delete:
		return "DELETE"
	}
	return "UNKNOWN"
}

// ParseRowKind parses a short string (+I) or an enum name (INSERT).
func ParseRowKind(s string) (RowKind, bool) {
	switch s {
	case "+I", "INSERT":
		return Insert, true
	case "-U", "UPDATE_BEFORE":
		return UpdateBefore, true
	case "+U", "UPDATE_AFTER":
		return UpdateAfter, true
	case "-D", "DELETE":
		return Delete, true
	}
	return 0, false
}

// Row is a row of a table: a change kind and positional field values, typed
// by the Schema of the table it belongs to (see value.go for the Go types).
type Row struct {
	Kind   RowKind
	Fields []any
}

// RowSlab hands out the field slices of rows from larger blocks, one
// allocation per block instead of one per row. A row keeps its block alive,
// which costs at most a block's worth of memory per row kept. The zero
// value is ready; a RowSlab is for one goroutine.
type RowSlab struct {
	free []any
}

const slabRows = 128

// Fields returns a new slice of n nil fields.
func (s *RowSlab) Fields(n int) []any {
	if n == 0 {
		return nil
	}
	if len(s.free) < n {
		s.free = make([]any, n*slabRows)
	}
	f := s.free[:n:n]
	s.free = s.free[n:]
	return f
}

// NewRow returns an INSERT row of the given values.
func NewRow(fields ...any) Row { return Row{Kind: Insert, Fields: fields} }

// Copy returns a row that shares no field slice with r.
func (r Row) Copy() Row {
	f := make([]any, len(r.Fields))
	copy(f, r.Fields)
	return Row{Kind: r.Kind, Fields: f}
}

// Column is a column of a schema.
type Column struct {
	Name string
	Type Type
	// TimeAttr marks an event-time attribute (a column with a watermark
	// declaration, or a PTF's rowtime column); Flink prints it *ROWTIME*.
	TimeAttr bool
	// ProcTime marks a processing-time attribute (a computed column AS
	// PROCTIME()); Flink prints it *PROCTIME*.
	ProcTime bool
}

// Schema is the ordered list of columns of a table or a query.
type Schema struct {
	Columns []Column
}

// Len returns the number of columns.
func (s Schema) Len() int { return len(s.Columns) }

// Index returns the index of the column named name, or -1.
func (s Schema) Index(name string) int {
	for i, c := range s.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// ColumnList renders the column names as Flink's messages list them: [a, b].
func (s Schema) ColumnList() string { return "[" + strings.Join(s.Names(), ", ") + "]" }

// Names returns the column names.
func (s Schema) Names() []string {
	n := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		n[i] = c.Name
	}
	return n
}

// RowType returns the schema as a ROW type (time attributes dropped).
func (s Schema) RowType() Type {
	f := make([]Field, len(s.Columns))
	for i, c := range s.Columns {
		f[i] = Field{Name: c.Name, Type: c.Type}
	}
	return NewRowType(f...)
}

// SchemaOf returns a schema whose columns are the fields of a ROW type.
func SchemaOf(t Type) Schema {
	cols := make([]Column, len(t.Fields))
	for i, f := range t.Fields {
		cols[i] = Column{Name: f.Name, Type: f.Type}
	}
	return Schema{Columns: cols}
}
