package plan

import (
	"errors"
	"maps"
	"sort"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/connector"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Table hints: FROM t /*+ OPTIONS('key' = 'value') */ reads t with those
// options over its WITH options, for that scan only, as Flink's dynamic
// table options do. The options are checked as CREATE TABLE checks
// them, with positions at the hint.

// planHinted plans the table of f with its hints.
func (p *Planner) planHinted(f *sqlmini.FromItem) (exec.Node, error) {
	nm := string(f.Table.Value)
	_, cte := p.ctes[nm]
	_, cteq := p.cteQueries[nm]
	t, ok := p.cat.Table(nm)
	if cte || cteq || ok && t.Kind == catalog.TableView {
		return nil, sqlmini.Errorf(f.Hints[0].Pos, "View '%s' cannot be enriched with new options. Hints can only be applied to tables.", nm)
	}
	if !ok {
		return p.planTableRef(f.Table) // its error
	}
	opts := maps.Clone(t.Options)
	var list []*sqlmini.Option
	for _, h := range f.Hints {
		if h.Name != "OPTIONS" {
			return nil, sqlmini.Errorf(h.Pos, "table hint %s is not supported: ptfsh applies OPTIONS('key' = 'value', ...)", h.Name)
		}
		if t.Kind == catalog.TableValues {
			return nil, sqlmini.Errorf(h.Pos, "table '%s' is given AS VALUES and has no connector options for OPTIONS(...) to override", nm)
		}
		for _, o := range h.Options {
			k := string(o.Key)
			if k == "connector" && string(o.Value) != t.Options["connector"] {
				return nil, sqlmini.Errorf(h.Pos, "OPTIONS cannot change the connector of table '%s' ('%s')", nm, t.Options["connector"])
			}
			opts[k] = string(o.Value)
		}
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		list = append(list, &sqlmini.Option{Pos: f.Hints[0].Pos, Key: sqlmini.Str(k), Value: sqlmini.Str(opts[k])})
	}
	ht := *t
	ht.Options = opts
	c, err := connector.Of(&ht)
	if err != nil {
		return nil, err
	}
	ct := &sqlmini.CreateTable{Pos: f.Hints[0].Pos, Name: f.Table, Options: list}
	if err := c.Validate(&ht, ct); err != nil {
		var pe *sqlmini.Error
		if errors.As(err, &pe) {
			return nil, sqlmini.Errorf(f.Hints[0].Pos, "OPTIONS of table '%s': %s", nm, pe.Msg)
		}
		return nil, err
	}
	return p.planTable(&ht, f.Table.Pos)
}
