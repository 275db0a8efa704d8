package expr

import (
	"slices"
	"strings"
	"time"

	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Scope resolves column names while compiling expressions.
type Scope struct {
	Schema types.Schema
	Alias  string // table alias that may qualify columns
	// Now is the session's clock in epoch milliseconds, which
	// CURRENT_TIMESTAMP and its relatives read; nil is the wall clock.
	Now func() int64
	// Zone is the session time zone ('table.local-time-zone'; nil: UTC),
	// in which a TIMESTAMP_LTZ reads as a wall-clock time and a TIMESTAMP
	// becomes an instant.
	Zone *time.Location
	// Seed seeds RAND() and RAND_INTEGER(bound), with the call's place in
	// the statement: SET 'ptfsh.seed'; nil seeds them from the clock.
	Seed *int64
	// UserFunction finds a function of the catalog by name (nil: none),
	// for scalar functions written in JavaScript (userfunc.go).
	UserFunction func(name string) (*ptf.FuncDef, bool)
	// Tables are the tables of a FROM clause with joins, in the order of
	// their columns in Schema (nil: one table, which Alias names). A column
	// resolves within the table that qualifies it, or, unqualified, within
	// the one table that has it.
	Tables []ScopeTable
	// Merged are the columns of JOIN ... USING lists: an unqualified name
	// of one reads its merged column, not the tables'.
	Merged []MergedColumn
	// Star lists the columns that * selects (nil: all of Schema's); a
	// join with USING shows each merged column once.
	Star []int
	// Over compiles a call with an OVER window (nil: OVER is not allowed
	// here). The planner gives it for a SELECT list, where such a call
	// reads a column that its OverAggregate appends to the row.
	Over func(f *sqlmini.FuncCall) (Expr, error)
	// Watermark is the watermark that CURRENT_WATERMARK reads: the
	// planner's node under the expressions keeps it up to date (nil:
	// CURRENT_WATERMARK is not available here).
	Watermark *WatermarkCell
}

// WatermarkCell holds the last watermark that passed a point of a plan,
// for CURRENT_WATERMARK; Has is false before the first.
type WatermarkCell struct {
	Wm  int64
	Has bool
}

// MergedColumn is a column of a JOIN ... USING list: its name and its
// index in the joined row.
type MergedColumn struct {
	Name  string
	Index int
	// Natural marks a column of a NATURAL JOIN: * shows it once, but an
	// unqualified name of it is ambiguous, as in Flink 2.3.0 (Calcite),
	// where a USING column's is not.
	Natural bool
}

// StarColumns returns the columns that * selects.
func (s *Scope) StarColumns() []int {
	if s.Star != nil {
		return s.Star
	}
	all := make([]int, s.Schema.Len())
	for i := range all {
		all[i] = i
	}
	return all
}

// ScopeTable is one table of a join's scope: the name that qualifies its
// columns (its alias, or its own name), its columns' own names, and where
// they start in the joined row (whose names may differ: k, k0).
type ScopeTable struct {
	Name  string
	Cols  []string
	Start int
}

// Table returns the table of the scope named name (case-insensitive, as an
// alias), or nil.
func (s *Scope) Table(name string) *ScopeTable {
	for i := range s.Tables {
		if strings.EqualFold(s.Tables[i].Name, name) {
			return &s.Tables[i]
		}
	}
	return nil
}

func (s *Scope) Lookup(ref *sqlmini.ColumnRef) (int, error) {
	parts := ref.Parts
	name := string(parts[len(parts)-1].Value)
	if len(s.Tables) > 0 {
		return s.lookupJoined(ref)
	}
	if len(parts) == 2 && s.Alias != "" && !strings.EqualFold(string(parts[0].Value), s.Alias) {
		return -1, sqlmini.Errorf(ref.Pos, "unknown table %q in column reference %s", parts[0].Value, JoinNames(parts))
	}
	if len(parts) > 2 {
		return -1, sqlmini.Errorf(ref.Pos, "column reference %s has too many parts", JoinNames(parts))
	}
	i := s.Schema.Index(name)
	if i < 0 {
		return -1, sqlmini.Errorf(ref.Pos, "column '%s' not found; available columns are: [%s]", name, strings.Join(s.Schema.Names(), ", "))
	}
	return i, nil
}

// Has reports whether an unqualified name is a column of the scope: of a
// table of a join (or a USING column), or of its schema.
func (s *Scope) Has(name string) bool {
	if len(s.Tables) == 0 {
		return s.Schema.Index(name) >= 0
	}
	for _, m := range s.Merged {
		if m.Name == name {
			return true
		}
	}
	for _, t := range s.Tables {
		if slices.Contains(t.Cols, name) {
			return true
		}
	}
	return false
}

// lookupJoined resolves a column in the scope of a join, with Flink's
// (Calcite's) messages for a column of no table or of several.
func (s *Scope) lookupJoined(ref *sqlmini.ColumnRef) (int, error) {
	parts := ref.Parts
	name := string(parts[len(parts)-1].Value)
	switch len(parts) {
	case 1:
		for _, m := range s.Merged {
			if m.Name == name && !m.Natural {
				return m.Index, nil
			}
		}
		found := -1
		for _, t := range s.Tables {
			for i, c := range t.Cols {
				if c != name {
					continue
				}
				if found >= 0 {
					return -1, sqlmini.Errorf(ref.Pos, "Column '%s' is ambiguous; qualify it with its table: %s", name, s.qualified(name))
				}
				found = t.Start + i
			}
		}
		if found < 0 {
			return -1, sqlmini.Errorf(ref.Pos, "Column '%s' not found in any table; available columns are: [%s]", name, strings.Join(s.allQualified(), ", "))
		}
		return found, nil
	case 2:
		t := s.Table(string(parts[0].Value))
		if t == nil {
			return -1, sqlmini.Errorf(ref.Pos, "Table '%s' not found; the tables of the FROM clause are %s", parts[0].Value, s.tableNames())
		}
		for i, c := range t.Cols {
			if c == name {
				return t.Start + i, nil
			}
		}
		return -1, sqlmini.Errorf(ref.Pos, "Column '%s' not found in table '%s'; its columns are [%s]", name, parts[0].Value, strings.Join(t.Cols, ", "))
	}
	return -1, sqlmini.Errorf(ref.Pos, "column reference %s has too many parts", JoinNames(parts))
}

// qualified lists name qualified by each table that has it: a.k, b.k.
func (s *Scope) qualified(name string) string {
	var q []string
	for _, t := range s.Tables {
		for _, c := range t.Cols {
			if c == name {
				q = append(q, t.Name+"."+c)
			}
		}
	}
	return strings.Join(q, ", ")
}

// allQualified lists every column of the scope qualified by its table.
func (s *Scope) allQualified() []string {
	var q []string
	for _, t := range s.Tables {
		for _, c := range t.Cols {
			q = append(q, t.Name+"."+c)
		}
	}
	return q
}

// tableNames lists the names of the scope's tables: [a, b].
func (s *Scope) tableNames() string {
	n := make([]string, len(s.Tables))
	for i, t := range s.Tables {
		n[i] = t.Name
	}
	return "[" + strings.Join(n, ", ") + "]"
}

func JoinNames(ns []*sqlmini.Name) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = string(n.Value)
	}
	return strings.Join(s, ".")
}
