package session

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/connector"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/settings"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// SET, RESET and SET; as the Flink SQL client has them, over the typed
// table of runtime/settings; and what the session reads of its settings:
// the result mode and format, the watermark pace.

// execSet runs SET 'key' = 'value' and SET;. A key must be one of the
// settings table (runtime/settings), whose parser checks the value; a
// Flink option that ptfsh ignores is taken with a note.
func (s *Session) execSet(set *sqlmini.Set) error {
	if set.Key == nil {
		return s.listSettings()
	}
	key, val := string(*set.Key), string(*set.Value)
	if reason, ok := settings.IgnoredReason(key); ok {
		fmt.Fprintf(s.cfg.Err, "note: ptfsh ignores '%s' (%s)\n", key, reason)
		s.settings[key] = val
		return nil
	}
	if _, err := settings.Check(key, val); err != nil {
		return sqlmini.Errorf(set.Pos, "%w", err)
	}
	switch key {
	case "state.path":
		if s.cfg.OpenStore == nil {
			return sqlmini.Errorf(set.Pos, "SET 'state.path' is not available here; start ptfsh with --state FILE")
		}
		st, err := s.cfg.OpenStore(s.path(val))
		if err != nil {
			return sqlmini.Errorf(set.Pos, "SET 'state.path': %w", err)
		}
		// Before any statement reads a table of the file's last run.
		if err := connector.FinishRenames(st, s.cfg.Err); err != nil {
			st.Close()
			return sqlmini.Errorf(set.Pos, "SET 'state.path': completing the last run's INSERT: %w", err)
		}
		if s.ownStore {
			s.cfg.Store.Close()
		}
		s.cfg.Store, s.ownStore = st, true
		s.cfg.Scratch = false
	case "ptfsh.format":
		// tableau, changelog and table name a result mode too: the later
		// of the two settings wins. rows, csv and json change only how
		// rows are written: the mode in force stays.
		if isModeFormat(strings.ToLower(val)) {
			delete(s.settings, "sql-client.execution.result-mode")
		} else if _, set := s.settings["sql-client.execution.result-mode"]; !set && s.resultMode() != "tableau" {
			s.settings["sql-client.execution.result-mode"] = s.resultMode()
		}
	case "sql-client.execution.result-mode":
		if isModeFormat(s.format()) {
			delete(s.settings, "ptfsh.format")
		}
	}
	if s.cfg.OnSet != nil {
		if err := s.cfg.OnSet(key, val); err != nil {
			return sqlmini.Errorf(set.Pos, "SET '%s': %w", key, err)
		}
	}
	s.settings[key] = val
	return nil
}

// listSettings is SET;: every setting with its value in force, as the
// Flink SQL client lists its configuration, and the ignored Flink options
// that were set.
func (s *Session) listSettings() error {
	var rows [][]string
	for _, st := range settings.All() {
		rows = append(rows, []string{st.Key, s.settingText(st)})
	}
	for _, ig := range settings.IgnoredKeys() {
		if v, ok := s.settings[ig.Key]; ok {
			rows = append(rows, []string{ig.Key, v})
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i][0] < rows[j][0] })
	return printMeta(s.cfg.Out, []string{"key", "value"}, rows)
}

// settingText is the value in force of a setting as SET; shows it: what
// SET gave; else what the session was made with (--format, --parallelism,
// --trace) or what Config.Current reports (the script engine's limits and
// seed); else the table's default.
func (s *Session) settingText(st settings.Setting) string {
	if v, ok := s.settings[st.Key]; ok {
		return v
	}
	switch st.Key {
	case "ptfsh.format":
		if e := s.encoding(); e != "text" {
			return e
		}
		return s.resultMode()
	case "sql-client.execution.result-mode":
		return s.resultMode()
	case exec.SetParallelism:
		return strconv.Itoa(max(s.cfg.Parallelism, 1))
	case exec.SetTrace:
		if s.cfg.Trace {
			return "on"
		}
	case exec.SetTraceKey:
		return s.cfg.TraceFilter.Key
	case exec.SetTraceFunction:
		return s.cfg.TraceFilter.Function
	case exec.SetTraceLate:
		if s.cfg.TraceFilter.Late {
			return "on"
		}
	case SetEcho:
		if s.cfg.Echo {
			return "on"
		}
	case exec.SetProcessingTime:
		return s.cfg.ProcessingTime
	case SetDialect:
		if s.cfg.Dialect != "" {
			return s.cfg.Dialect
		}
	}
	if s.cfg.Current != nil {
		if v, ok := s.cfg.Current(st.Key); ok {
			return v
		}
	}
	return st.Default
}

// watermarkEvery is SET 'ptfsh.watermark.every-rows' (default 1: a
// watermark after each row, as Flink's tests emit them).
func (s *Session) watermarkEvery() int64 {
	if n, ok := settings.Get[int64](s.settings, "ptfsh.watermark.every-rows"); ok {
		return n
	}
	return 1
}

// format is the result format in force, as --format or SET 'ptfsh.format'
// gave it.
func (s *Session) format() string {
	if f, ok := s.settings["ptfsh.format"]; ok {
		return strings.ToLower(f)
	}
	return s.cfg.Format
}

// isModeFormat reports whether a format names a result mode: tableau,
// changelog and table print text whose layout the mode decides.
func isModeFormat(f string) bool { return f == "tableau" || f == "changelog" || f == "table" }

// resultMode is the result mode in force (Flink's
// sql-client.execution.result-mode): tableau and changelog print every
// change, table the final rows.
func (s *Session) resultMode() string {
	if m, ok := s.settings["sql-client.execution.result-mode"]; ok {
		return strings.ToLower(m)
	}
	if f := s.format(); f == "changelog" || f == "table" {
		return f
	}
	return "tableau"
}

// encoding is how results are written: rows, csv or json, or text (the
// layout of the result mode).
func (s *Session) encoding() string {
	if f := s.format(); !isModeFormat(f) {
		return f
	}
	return "text"
}
