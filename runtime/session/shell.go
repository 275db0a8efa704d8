package session

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/settings"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// The statements of the shell itself (HELP, QUIT, EXIT), the Flink SQL
// client's success messages, and the echo of a script's statements.

// ErrQuit is what ExecStatement returns for QUIT and EXIT: the caller
// ends the script or the REPL (Exec and RunEach stop, without an error).
var ErrQuit = errors.New("quit")

// SetEcho is the setting that prints each statement of a script before
// its result (--echo).
const SetEcho = "ptfsh.echo"

// Flink SQL client's messages for a statement that succeeded without a
// result (CliStrings.MESSAGE_EXECUTE_STATEMENT and, for INSERT with
// 'table.dml-sync', MESSAGE_FINISH_STATEMENT), after "[INFO] ".
const (
	infoExecuted = "[INFO] Execute statement succeeded."
	infoInserted = "[INFO] Complete execution of the SQL update statement."
)

// SetOutput sends results to out, and notes, counts and timings to errs,
// until the returned function puts back the writers before (the REPL's
// pager: one statement's output through it, in the order it comes).
func (s *Session) SetOutput(out, errs io.Writer) (restore func()) {
	oldOut, oldErr := s.cfg.Out, s.cfg.Err
	s.cfg.Out, s.cfg.Err = out, errs
	return func() { s.cfg.Out, s.cfg.Err = oldOut, oldErr }
}

// Setting returns the value of a setting as SET gave it, or its default
// (ok false when the key is none of the settings table's).
func (s *Session) Setting(key string) (string, bool) {
	if v, ok := s.settings[key]; ok {
		return v, true
	}
	st, ok := settings.Lookup(key)
	if !ok {
		return "", false
	}
	return st.Default, true
}

// SetPredict sets how the shell asks a learner for a guess in predict
// mode (Config.Predict).
func (s *Session) SetPredict(f func(step string) (rows []string, ok bool)) { s.cfg.Predict = f }

// SetInteractive says that statements come from a person at the REPL: a
// statement that succeeds without a result says so, as the Flink SQL
// client does ([INFO] Execute statement succeeded.).
func (s *Session) SetInteractive(on bool) { s.interactive = on }

// echo reports SET 'ptfsh.echo' = 'on', or, while it is not set, SET
// 'sql-client.verbose' = 'true' or --echo.
func (s *Session) echo() bool {
	if _, set := s.settings[SetEcho]; !set {
		if verbose, _ := settings.Get[bool](s.settings, "sql-client.verbose"); verbose {
			return true // the Flink SQL client's verbose output
		}
		return s.cfg.Echo
	}
	on, _ := settings.Get[bool](s.settings, SetEcho)
	return on
}

// announce writes the statement before it runs, for a script that
// echoes its statements: the prompt, then its lines as typed.
func (s *Session) announce(st *sqlmini.Statement) {
	text := strings.ReplaceAll(st.Text, "\n", "\n"+ContinuationPrompt)
	fmt.Fprintf(s.cfg.Err, "%s%s;\n", Prompt, text)
}

// The REPL's prompts, which an echoed statement shows too.
const (
	Prompt             = "ptfsh> "
	ContinuationPrompt = "     > "
)

// succeeded writes the Flink SQL client's message for a statement that
// succeeded without a result, at the REPL and in a script that echoes its
// statements. It goes to stderr, so that the results of a script stay
// alone on stdout.
func (s *Session) succeeded(st *sqlmini.Statement) {
	switch {
	case st.Create != nil, st.Drop != nil, st.Reset != nil, st.Set != nil && st.Set.Key != nil:
		fmt.Fprintln(s.cfg.Err, infoExecuted)
	}
	// An INSERT reports what it wrote itself (insertReport).
}

// execCommand runs HELP, QUIT and EXIT.
func (s *Session) execCommand(c *sqlmini.Command) error {
	if strings.EqualFold(c.Word, "HELP") {
		_, err := io.WriteString(s.cfg.Out, helpText)
		return err
	}
	return ErrQuit
}

// helpText is what HELP prints: the statements, where the settings and
// the grammar are, and the keys of the shell.
const helpText = `The statements of ptfsh (Flink SQL; each ends with ';' and may span lines):

  CREATE [OR REPLACE] [TEMPORARY] FUNCTION [IF NOT EXISTS] f AS 'f.js'
                                  registers a PTF from a JavaScript or TypeScript file
                                  (reloaded when the file or a file it imports changes)
  CREATE FUNCTION f LANGUAGE JAVASCRIPT AS $$ ... $$
                                  registers a PTF written inline
  CREATE [OR REPLACE] VIEW v [(cols)] AS query
  CREATE [OR REPLACE] TABLE t (cols) WITH ('connector' = 'filesystem' | 'datagen', ...)
  CREATE TABLE t (cols) AS VALUES (...), WATERMARK ..., (...)
                                  rows inline, with watermark steps
  CREATE STREAM s (cols, WATERMARK FOR ts AS ...)
  INSERT INTO s VALUES (...)      ADVANCE WATERMARK s TO TIMESTAMP '...' | END
  ADVANCE PROCESSING TIME s TO TIMESTAMP '...' | BY INTERVAL '...'
                                  a stream fed step by step: a query on it keeps running and
                                  prints what each step emits; its clock moves only by hand
  DROP [TEMPORARY] FUNCTION | VIEW | TABLE [IF EXISTS] name
  SHOW [USER] FUNCTIONS | TABLES | VIEWS [[NOT] LIKE 'pat%']
  SHOW JOBS                       the queries and INSERTs that ran: status, time, rows
  SHOW CREATE TABLE | VIEW | FUNCTION name
                                  the statement that creates it
  DESCRIBE name                   the columns of a table or view, a function's declaration
  DESCRIBE FUNCTION [EXTENDED] f  Flink's function metadata
  SELECT [DISTINCT] ... FROM t | f(TABLE t PARTITION BY k, arg => value, ...) [WHERE ...]
         [GROUP BY ...] [HAVING ...] [ORDER BY ...] [LIMIT n]
                                  expressions: CASE, BETWEEN, LIKE, IN, CAST, ... and the
                                  built-in functions (SHOW FUNCTIONS, DESCRIBE FUNCTION f)
  INSERT INTO | OVERWRITE t query EXECUTE STATEMENT SET BEGIN INSERT ...; INSERT ...; END
  EXPLAIN [PLAN FOR] query        the plan, with each node's changelog mode
  EXPLAIN TIMELINE query          runs the query and draws, per key, its rows, watermark,
                                  timers and output over event time (SET 'ptfsh.timeline'
                                  = 'out.html' draws each query into a file)
  EXPLAIN WHY query               runs the query with a column, why, for what led each row
                                  (an input row, a timer), and why rows did not come
  SHOW STATE | TIMERS FOR 'uid' [KEY (values)]
  DROP STATE FOR 'uid'            what the state store holds for a call, and forgetting it
  SET 'key' = 'value'             RESET ['key'];  SET; lists every setting with its value
  HELP                            this text
  QUIT, EXIT                      ends the shell or the script

docs/sql.md and sqlmini/doc.go have the whole grammar.
Keys: Tab completes, Up and Down recall statements, Ctrl-R searches them,
Ctrl-C cancels the statement that runs (or the one being typed), Ctrl-D quits.
`
