package session

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/plan"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// SHOW and DESCRIBE: the listings of the catalog, DESCRIBE FUNCTION
// [EXTENDED], SHOW CREATE TABLE | VIEW | FUNCTION and the LIKE filter of
// SHOW, as Flink has them.

func (s *Session) execShow(sh *sqlmini.Show) error {
	if strings.EqualFold(sh.What, "JOBS") {
		return s.jobs.show(s.cfg.Out, sh) // jobs.go
	}
	if sh.Inspect != "" {
		return s.execInspect(sh)
	}
	if sh.CreateOf != "" {
		return s.showCreate(sh)
	}
	if sh.Topics {
		return s.showTopics(sh) // kafka_sink.go
	}
	var header string
	var names []string
	switch strings.ToUpper(sh.What) {
	case "FUNCTIONS":
		header = "function name"
		names = s.cat.FunctionNames(sh.User)
		if !sh.User {
			// The built-in scalar functions too, as Flink lists its system
			// functions; a catalog function of the same name hides one.
			have := map[string]bool{}
			for _, n := range names {
				have[strings.ToUpper(n)] = true
			}
			for _, f := range expr.Functions() {
				if !have[f.Name] {
					names = append(names, f.Name)
				}
			}
			sort.Slice(names, func(i, j int) bool { return strings.ToLower(names[i]) < strings.ToLower(names[j]) })
		}
	default:
		header = "table name"
		if strings.ToUpper(sh.What) == "VIEWS" {
			header = "view name"
		}
		for _, n := range s.cat.TableNames() {
			t, _ := s.cat.Table(n)
			if strings.ToUpper(sh.What) == "VIEWS" && t.Kind != catalog.TableView {
				continue
			}
			names = append(names, n)
		}
	}
	names = filterLike(sh, names)
	rows := make([][]string, len(names))
	for i, n := range names {
		rows[i] = []string{n}
	}
	return printMeta(s.cfg.Out, []string{header}, rows)
}

func (s *Session) execDescribe(d *sqlmini.Describe) error {
	if d.Function {
		return s.describeFunction(d)
	}
	name := string(d.Name.Value)
	if t, ok := s.cat.Table(name); ok {
		var rows [][]string
		pk := map[int]bool{}
		for _, k := range t.PrimaryKey {
			pk[k] = true
		}
		for i, c := range t.Schema.Columns {
			typ := c.Type.Nullable().String()
			if c.TimeAttr {
				typ += " *ROWTIME*"
			}
			if c.ProcTime {
				typ += " *PROCTIME*"
			}
			null, key, extras, wm := "TRUE", "", "", ""
			for _, cc := range t.Computed {
				if cc.Index == i {
					extras = "AS " + cc.Expr.String()
				}
			}
			if m, ok := t.Metadata[i]; ok {
				extras = "METADATA"
				if m.Key != c.Name {
					extras += " FROM '" + m.Key + "'"
				}
				if m.Virtual {
					extras += " VIRTUAL"
				}
			}
			if c.Type.NotNull {
				null = "FALSE"
			}
			if pk[i] {
				key = "PRI(" + c.Name + ")"
			}
			if t.Watermark != nil && t.Watermark.Column == i {
				wm = t.Watermark.Expr
			}
			rows = append(rows, []string{c.Name, typ, null, key, extras, wm})
		}
		return printMeta(s.cfg.Out, []string{"name", "type", "null", "key", "extras", "watermark"}, rows)
	}
	if f, ok := s.cat.Function(name); ok {
		def := f.Def
		kind := "PROCESS_TABLE"
		if def.Scalar != nil {
			kind = "SCALAR"
		}
		lang := def.Language
		rows := [][]string{
			{"name", def.Name},
			{"kind", kind},
			{"language", lang},
			{"signature", plan.Signature(def)},
			{"output", describeOutput(def)},
		}
		if f.Path != "" {
			rows = append(rows, []string{"file", f.Path})
		}
		for _, sd := range def.State {
			rows = append(rows, []string{"state " + sd.Name, stateText(sd)})
		}
		if def.HasOnTimer {
			rows = append(rows, []string{"onTimer", "yes"})
		}
		return printMeta(s.cfg.Out, []string{"info name", "info value"}, rows)
	}
	return sqlmini.Errorf(d.Name.Pos, "'%s' is neither a table, a view nor a function%s", name, s.cat.SuggestAny(name))
}

// describeFunction is DESCRIBE FUNCTION [EXTENDED] f, in the shape of
// Flink's DescribeFunctionOperation: "info name" and "info value" rows,
// is system function and is temporary first, then for a user function its
// file (Flink's class name) and language; EXTENDED adds Flink's kind,
// requirements, is deterministic, supports constant folding and
// signature, then what a PTF declares (output, state, timers, changelog)
// and the files a hot reload watches.
func (s *Session) describeFunction(d *sqlmini.Describe) error {
	name := string(d.Name.Value)
	f, ok := s.cat.Function(name)
	if !ok {
		if b, ok := expr.LookupFunction(name); ok {
			// A built-in scalar function: Flink's rows for a system function.
			rows := [][]string{{"is system function", "true"}, {"is temporary", "false"}}
			if d.Extended {
				rows = append(rows, []string{"kind", "SCALAR"}, []string{"requirements", "[]"},
					[]string{"is deterministic", fmt.Sprint(b.Deterministic())},
					[]string{"supports constant folding", fmt.Sprint(b.Deterministic())}, []string{"signature", b.Signature})
			}
			rows = append(rows, []string{"description", b.Doc})
			return printMeta(s.cfg.Out, []string{"info name", "info value"}, rows)
		}
		return sqlmini.Errorf(d.Name.Pos, "Function with the identifier '%s' doesn't exist.%s", name, s.cat.SuggestFunction(name))
	}
	def := f.Def
	rows := [][]string{
		{"is system function", fmt.Sprint(f.BuiltIn)},
		{"is temporary", fmt.Sprint(f.Temporary)},
	}
	if !f.BuiltIn {
		file := f.Path
		if file == "" {
			file = "(inline)"
		}
		rows = append(rows, []string{"file", file}, []string{"function language", def.Language})
	}
	if !d.Extended {
		return printMeta(s.cfg.Out, []string{"info name", "info value"}, rows)
	}
	kind := "PROCESS_TABLE"
	if def.Scalar != nil {
		kind = "SCALAR"
	}
	rows = append(rows,
		[]string{"kind", kind},
		[]string{"requirements", "[]"},
		[]string{"is deterministic", "true"},
		[]string{"supports constant folding", "true"},
		[]string{"signature", plan.Signature(def)},
	)
	switch {
	case def.Scalar != nil:
		rows = append(rows, []string{"output", def.Output.String()})
	case def.Infer == nil:
		rows = append(rows, []string{"output", ptfop.OutputSchema(def.Output).RowType().String()})
	default:
		rows = append(rows, []string{"output", "inferred from the call"})
	}
	for _, sd := range def.State {
		rows = append(rows, []string{"state " + sd.Name, stateText(sd)})
	}
	rows = append(rows, []string{"has onTimer", fmt.Sprint(def.HasOnTimer)})
	if def.Runs != nil {
		rows = append(rows, []string{"runs", def.Runs()})
	}
	changelog := "insert-only"
	if def.ChangelogMode != nil {
		changelog = "a ChangelogFunction (chooses its mode per call)"
	}
	rows = append(rows, []string{"changelog", changelog})
	if len(f.Files) > 1 {
		dir := filepath.Dir(f.Files[0].Path)
		var deps []string
		for _, fs := range f.Files[1:] {
			rel, err := filepath.Rel(dir, fs.Path)
			if err != nil {
				rel = fs.Path
			}
			deps = append(deps, filepath.ToSlash(rel))
		}
		rows = append(rows, []string{"imports", strings.Join(deps, ", ")})
	}
	return printMeta(s.cfg.Out, []string{"info name", "info value"}, rows)
}

// stateText describes a state entry: value, list or map, its type and TTL.
func stateText(sd ptf.StateDecl) string {
	v := "value"
	switch sd.Kind {
	case ptf.ListState:
		v = "list"
	case ptf.MapState:
		v = "map"
	}
	if sd.Type != nil {
		v += " " + sd.Type.String()
	}
	if sd.TTLSet {
		v += " ttl " + sd.TTL.String()
	}
	return v
}

// showCreate is SHOW CREATE TABLE | VIEW | FUNCTION name: the statement
// that creates it, laid out as Flink's SHOW CREATE prints one (one column
// or option a line, names backquoted, options sorted), in ptfsh's
// dialect, so that it runs again as it is. Like Flink, it prints the text
// alone, without a table around it.
func (s *Session) showCreate(sh *sqlmini.Show) error {
	name := string(sh.Name.Value)
	what := strings.ToUpper(sh.CreateOf)
	var text string
	if what == "FUNCTION" {
		f, ok := s.cat.Function(name)
		switch {
		case !ok:
			return sqlmini.Errorf(sh.Name.Pos, "function '%s' does not exist%s", name, s.cat.SuggestFunction(name))
		case f.BuiltIn:
			return sqlmini.Errorf(sh.Name.Pos, "'%s' is a built-in function: no statement creates it", f.Def.Name)
		}
		text = showCreateFunction(f)
	} else {
		t, ok := s.cat.Table(name)
		if !ok {
			return sqlmini.Errorf(sh.Name.Pos, "%s '%s' does not exist%s", strings.ToLower(what), name, s.cat.SuggestTable(name))
		}
		isView := t.Kind == catalog.TableView
		if isView != (what == "VIEW") {
			kind, other := "table", "TABLE"
			if isView {
				kind, other = "view", "VIEW"
			}
			return sqlmini.Errorf(sh.Name.Pos, "SHOW CREATE %s is only supported for %ss, but '%s' is a %s. Please use SHOW CREATE %s instead.", what, strings.ToLower(what), name, kind, other)
		}
		if isView {
			text = showCreateView(t)
		} else {
			text = showCreateTable(t)
		}
	}
	_, err := io.WriteString(s.cfg.Out, text)
	return err
}

// quote backquotes a name, as Flink's SHOW CREATE does.
func quote(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

// createPrefix is CREATE [TEMPORARY] kind `name`.
func createPrefix(kind string, temporary bool, name string) string {
	if temporary {
		return "CREATE TEMPORARY " + kind + " " + quote(name)
	}
	return "CREATE " + kind + " " + quote(name)
}

func showCreateFunction(f *catalog.Function) string {
	b := createPrefix("FUNCTION", f.Temporary, f.Def.Name)
	lang := "JAVASCRIPT"
	if c := f.Create; c != nil && c.Function != nil {
		if l := c.Function.Language(); l != "" {
			lang = strings.ToUpper(l)
		}
		if body, ok := c.Function.Source(); ok {
			return b + " LANGUAGE " + lang + " AS $$" + body + "$$\n"
		}
	}
	return b + " AS " + sqlmini.QuoteString(f.Path) + " LANGUAGE " + lang + "\n"
}

func showCreateView(t *catalog.Table) string {
	var b strings.Builder
	b.WriteString(createPrefix("VIEW", t.Temporary, t.Name) + " (\n")
	for i, c := range t.Schema.Columns {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("  " + quote(c.Name))
	}
	b.WriteString("\n)\nAS " + t.Query.String() + "\n")
	return b.String()
}

func showCreateTable(t *catalog.Table) string {
	var b strings.Builder
	kind, ct := "TABLE", (*sqlmini.CreateTable)(nil)
	if t.Create != nil {
		ct = t.Create.Table
		if t.Create.Stream != nil { // a stream: its rows are not part of it
			kind, ct = "STREAM", t.Create.Stream
		}
	}
	b.WriteString(createPrefix(kind, t.Temporary, t.Name) + " (\n")
	var lines []string
	var pk []string
	var wm *sqlmini.Watermark
	if ct != nil {
		for _, el := range ct.Elements {
			switch {
			case el.Column != nil && el.Column.Computed != nil:
				lines = append(lines, "  "+quote(string(el.Column.Name.Value))+" AS "+el.Column.Computed.String())
			case el.Column != nil:
				lines = append(lines, "  "+quote(string(el.Column.Name.Value))+" "+el.Column.Type.String())
				if el.Column.PrimaryKey {
					pk = append(pk, quote(string(el.Column.Name.Value)))
				}
			case el.PrimaryKey != nil:
				for _, n := range el.PrimaryKey.Columns {
					pk = append(pk, quote(string(n.Value)))
				}
			case el.Watermark != nil:
				wm = el.Watermark
			}
		}
	}
	if t.Inferred { // columns inferred from the file: written out, so Flink can run the statement
		sch := t.Schema
		if t.SourceSchema.Len() > 0 {
			sch = t.SourceSchema
		}
		for _, c := range sch.Columns {
			lines = append(lines, "  "+quote(c.Name)+" "+c.Type.String())
		}
	}
	if wm != nil {
		lines = append(lines, "  WATERMARK FOR "+quote(string(wm.Column.Value))+" AS "+wm.Expr.String())
	}
	if len(pk) > 0 {
		lines = append(lines, "  PRIMARY KEY ("+strings.Join(pk, ", ")+") NOT ENFORCED")
	}
	b.WriteString(strings.Join(lines, ",\n") + "\n)\n")
	if len(t.Options) > 0 {
		keys := make([]string, 0, len(t.Options))
		for k := range t.Options {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("WITH (\n")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(",\n")
			}
			b.WriteString("  " + sqlmini.QuoteString(k) + " = " + sqlmini.QuoteString(t.Options[k]))
		}
		b.WriteString("\n)\n")
	}
	if t.Create != nil && t.Create.Table != nil && t.Create.Table.Query != nil {
		q := t.Create.Table.Query
		if v := q.Body.Values; v != nil && len(q.With) == 0 && len(q.Ops) == 0 {
			b.WriteString("AS VALUES\n")
			for i, r := range v.Rows {
				if i > 0 {
					b.WriteString(",\n")
				}
				b.WriteString("  " + r.String())
			}
			b.WriteString("\n")
		} else {
			b.WriteString("AS " + q.String() + "\n")
		}
	}
	return b.String()
}

// likeMatch reports whether s matches the SQL LIKE pattern: % any run of
// characters, _ one character, \ before either (or itself) the character
// itself; fold compares ignoring case (ILIKE).
func likeMatch(pattern, s string, fold bool) bool {
	if fold {
		pattern, s = strings.ToLower(pattern), strings.ToLower(s)
	}
	p, t := []rune(pattern), []rune(s)
	// Backtracking on the last %: linear for patterns without several %.
	pi, ti, star, mark := 0, 0, -1, 0
	for ti < len(t) {
		if pi < len(p) {
			switch c := p[pi]; {
			case c == '%':
				star, mark = pi, ti
				pi++
				continue
			case c == '\\' && pi+1 < len(p) && p[pi+1] == t[ti]:
				pi, ti = pi+2, ti+1
				continue
			case c == '_' || c != '\\' && c == t[ti]:
				pi, ti = pi+1, ti+1
				continue
			}
		}
		if star < 0 {
			return false
		}
		mark++
		pi, ti = star+1, mark
	}
	for pi < len(p) && p[pi] == '%' {
		pi++
	}
	return pi == len(p)
}

// filterLike keeps the names that SHOW's [NOT] LIKE | ILIKE keeps.
func filterLike(sh *sqlmini.Show, names []string) []string {
	if sh.Pattern == nil {
		return names
	}
	pattern := string(*sh.Pattern)
	fold := strings.EqualFold(sh.Like, "ILIKE")
	var out []string
	for _, n := range names {
		if likeMatch(pattern, n, fold) != sh.NotLike {
			out = append(out, n)
		}
	}
	return out
}
