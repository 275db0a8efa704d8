package session

import (
	"strings"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// CREATE TABLE ... LIKE, as Flink's planner merges it (MergeTableLikeUtil):
// the new table starts from the source table's declaration and adds its
// own columns, constraints, watermark and options. Each feature of the
// source is merged with a strategy:
//
//	INCLUDING    take the source's; a declaration of the same thing is an error
//	EXCLUDING    leave the source's out
//	OVERWRITING  take the source's; the new table's replaces one of the same name
//
// The defaults are Flink's: INCLUDING everything but OPTIONS, which are
// OVERWRITING. Physical columns always come from the source. ALL sets
// every feature, and the features named after it change it again.

// likeFeatures are the features of a LIKE clause that have a strategy.
var likeFeatures = []string{"CONSTRAINTS", "PARTITIONS", "DISTRIBUTION", "GENERATED", "OPTIONS", "WATERMARKS", "METADATA"}

// likeStrategies computes the strategy of each feature.
func likeStrategies(l *sqlmini.TableLike) (map[string]string, error) {
	st := map[string]string{}
	for _, f := range likeFeatures {
		st[f] = "INCLUDING"
	}
	st["OPTIONS"] = "OVERWRITING"
	seen := map[string]bool{}
	for _, o := range l.Options {
		f, m := strings.ToUpper(o.Feature), strings.ToUpper(o.Strategy)
		if seen[f] {
			return nil, sqlmini.Errorf(o.Pos, "Each like option feature can be declared only once: %s is declared twice", f)
		}
		seen[f] = true
		if m == "OVERWRITING" && (f == "ALL" || f == "CONSTRAINTS" || f == "PARTITIONS" || f == "DISTRIBUTION") {
			return nil, sqlmini.Errorf(o.Pos, "Illegal merging strategy '%s' for '%s' option: it is INCLUDING or EXCLUDING", m, f)
		}
		if f == "ALL" {
			for _, g := range likeFeatures {
				st[g] = m
			}
		}
	}
	for _, o := range l.Options {
		if f := strings.ToUpper(o.Feature); f != "ALL" {
			st[f] = strings.ToUpper(o.Strategy)
		}
	}
	return st, nil
}

// mergeLike returns the declaration that ct's LIKE clause makes: the
// source table's declaration merged with ct's own, without the clause.
func (s *Session) mergeLike(ct *sqlmini.CreateTable) (*sqlmini.CreateTable, error) {
	l := ct.Like
	name := string(l.Source.Value)
	src, ok := s.cat.Table(name)
	if !ok {
		return nil, sqlmini.Errorf(l.Source.Pos, "Source table '%s' of the LIKE clause not found in the catalog%s", name, s.cat.SuggestTable(name))
	}
	if src.Kind == catalog.TableView {
		return nil, sqlmini.Errorf(l.Source.Pos, "Source table '%s' of the LIKE clause can not be a VIEW", name)
	}
	var base *sqlmini.CreateTable
	if src.Create != nil {
		base = src.Create.Table
		if base == nil {
			base = src.Create.Stream
		}
	}
	if base == nil || src.Inferred {
		return nil, sqlmini.Errorf(l.Source.Pos, "table '%s' of the LIKE clause declares no columns (they are inferred from its file): declare them, CREATE TABLE %s (col TYPE, ...), to use it in LIKE", name, sqlmini.QuoteIdent(name))
	}
	st, err := likeStrategies(l)
	if err != nil {
		return nil, err
	}

	// The source's columns, primary key and watermark, as kept.
	var cols, keys, wms []*sqlmini.TableElement
	for _, el := range base.Elements {
		switch {
		case el.Column != nil:
			c := el.Column
			if c.Computed != nil && st["GENERATED"] == "EXCLUDING" || c.Metadata != nil && st["METADATA"] == "EXCLUDING" {
				continue
			}
			if c.PrimaryKey && st["CONSTRAINTS"] != "INCLUDING" {
				cp := *c
				cp.PrimaryKey = false
				el = &sqlmini.TableElement{Pos: el.Pos, Column: &cp}
			}
			cols = append(cols, el)
		case el.PrimaryKey != nil:
			if st["CONSTRAINTS"] == "INCLUDING" {
				keys = append(keys, el)
			}
		case el.Watermark != nil:
			if st["WATERMARKS"] != "EXCLUDING" {
				wms = append(wms, el)
			}
		}
	}
	hasKey := len(keys) > 0
	for _, el := range cols {
		hasKey = hasKey || el.Column.PrimaryKey
	}
	find := func(name string) int {
		for i, el := range cols {
			if string(el.Column.Name.Value) == name {
				return i
			}
		}
		return -1
	}

	// The new table's own declarations.
	for _, el := range ct.Elements {
		switch {
		case el.Column != nil:
			c := el.Column
			cn := string(c.Name.Value)
			if c.PrimaryKey || el.PrimaryKey != nil {
				if hasKey {
					return nil, sqlmini.Errorf(el.Pos, "The base table already has a primary key. You might want to specify EXCLUDING CONSTRAINTS.")
				}
			}
			i := find(cn)
			if i < 0 {
				cols = append(cols, el)
				continue
			}
			prev := cols[i].Column
			switch {
			case c.Computed != nil:
				if prev.Computed == nil {
					return nil, sqlmini.Errorf(el.Pos, "A column named '%s' already exists in the base table. Computed columns can only overwrite other computed columns.", cn)
				}
				if st["GENERATED"] != "OVERWRITING" {
					return nil, sqlmini.Errorf(el.Pos, "A generated column named '%s' already exists in the base table. You might want to specify EXCLUDING GENERATED or OVERWRITING GENERATED.", cn)
				}
			case c.Metadata != nil:
				if prev.Metadata == nil {
					return nil, sqlmini.Errorf(el.Pos, "A column named '%s' already exists in the base table. Metadata columns can only overwrite other metadata columns.", cn)
				}
				if st["METADATA"] != "OVERWRITING" {
					return nil, sqlmini.Errorf(el.Pos, "A metadata column named '%s' already exists in the base table. You might want to specify EXCLUDING METADATA or OVERWRITING METADATA.", cn)
				}
			default:
				return nil, sqlmini.Errorf(el.Pos, "A column named '%s' already exists in the base table.", cn)
			}
			cols[i] = el
		case el.PrimaryKey != nil:
			if hasKey {
				return nil, sqlmini.Errorf(el.Pos, "The base table already has a primary key. You might want to specify EXCLUDING CONSTRAINTS.")
			}
			keys = append(keys, el)
		case el.Watermark != nil:
			col := string(el.Watermark.Column.Value)
			replaced := false
			for i, w := range wms {
				if string(w.Watermark.Column.Value) != col {
					continue
				}
				if st["WATERMARKS"] != "OVERWRITING" {
					return nil, sqlmini.Errorf(el.Pos, "There already exists a watermark spec for column '%s' in the base table. You might want to specify EXCLUDING WATERMARKS or OVERWRITING WATERMARKS.", col)
				}
				wms[i], replaced = el, true
			}
			if !replaced {
				wms = append(wms, el)
			}
		}
	}

	// The options: the source's unless EXCLUDING, then the new table's.
	var opts []*sqlmini.Option
	if st["OPTIONS"] != "EXCLUDING" {
		opts = append(opts, base.Options...)
	}
	for _, o := range ct.Options {
		i := -1
		for j, p := range opts {
			if p.Key == o.Key {
				i = j
			}
		}
		switch {
		case i < 0:
			opts = append(opts, o)
		case st["OPTIONS"] != "OVERWRITING":
			return nil, sqlmini.Errorf(o.Pos, "There already exists an option ['%s' -> '%s'] in the base table. You might want to specify EXCLUDING OPTIONS or OVERWRITING OPTIONS.", o.Key, opts[i].Value)
		default:
			opts[i] = o
		}
	}

	merged := &sqlmini.CreateTable{Pos: ct.Pos, Name: ct.Name, Options: opts, Query: ct.Query}
	merged.Elements = append(append(append(merged.Elements, cols...), keys...), wms...)
	return merged, nil
}
