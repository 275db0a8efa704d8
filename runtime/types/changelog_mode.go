package types

import (
	"strings"
)

// ChangelogMode is the set of row kinds a table or function produces, as
// Flink's ChangelogMode. KeyOnlyDeletes marks deletes that carry only the key.
type ChangelogMode struct {
	kinds          uint8
	KeyOnlyDeletes bool
}

// NewChangelogMode returns a mode with the given kinds.
func NewChangelogMode(kinds ...RowKind) ChangelogMode {
	var m ChangelogMode
	for _, k := range kinds {
		m.kinds |= 1 << k
	}
	return m
}

// Standard changelog modes.
var (
	InsertOnly = NewChangelogMode(Insert)
	RetractAll = NewChangelogMode(Insert, UpdateBefore, UpdateAfter, Delete)
	UpsertAll  = NewChangelogMode(Insert, UpdateAfter, Delete)
)

// Contains reports whether kind k is in the mode.
func (m ChangelogMode) Contains(k RowKind) bool { return m.kinds&(1<<k) != 0 }

// IsEmpty reports whether the mode has no kind at all (not declared).
func (m ChangelogMode) IsEmpty() bool { return m.kinds == 0 }

// Union returns the mode with the kinds of both m and o; KeyOnlyDeletes is m's.
func (m ChangelogMode) Union(o ChangelogMode) ChangelogMode {
	m.kinds |= o.kinds
	return m
}

// With returns the mode with kind k added.
func (m ChangelogMode) With(k RowKind) ChangelogMode {
	m.kinds |= 1 << k
	return m
}

// Without returns the mode with kind k removed.
func (m ChangelogMode) Without(k RowKind) ChangelogMode {
	m.kinds &^= 1 << k
	return m
}

// IsInsertOnly reports whether the mode has only INSERT.
func (m ChangelogMode) IsInsertOnly() bool { return m.kinds == 1<<Insert }

// Kinds returns the kinds in Flink's order.
func (m ChangelogMode) Kinds() []RowKind {
	var ks []RowKind
	for k := Insert; k <= Delete; k++ {
		if m.Contains(k) {
			ks = append(ks, k)
		}
	}
	return ks
}

// String renders the mode as Flink's ChangelogMode.toString:
// [INSERT, UPDATE_AFTER, ~DELETE].
func (m ChangelogMode) String() string {
	var parts []string
	for _, k := range m.Kinds() {
		s := k.String()
		if k == Delete && m.KeyOnlyDeletes {
			s = "~" + s
		}
		parts = append(parts, s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// ShortString renders the mode in plan notation: I,UB,UA,D.
func (m ChangelogMode) ShortString() string {
	short := map[RowKind]string{Insert: "I", UpdateBefore: "UB", UpdateAfter: "UA", Delete: "D"}
	var parts []string
	for _, k := range m.Kinds() {
		parts = append(parts, short[k])
	}
	return strings.Join(parts, ",")
}
