package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/chzyer/readline"
	"github.com/ptfsh/ptfsh/runtime/session"
	"github.com/ptfsh/ptfsh/sqlmini"
)

const (
	prompt     = session.Prompt
	contPrompt = session.ContinuationPrompt
)

// rcFile is read at the start of the interactive shell, in the home
// folder: statements that set a session up (functions, tables, settings).
const rcFile = ".ptfshrc"

// repl reads statements until end of input, QUIT or EXIT. An error is
// printed and the shell goes on. With a terminal it uses readline
// (history, line editing), runs ~/.ptfshrc first, and says when a
// statement without a result succeeded, as the Flink SQL client does;
// otherwise it reads plain lines without a prompt.
func repl(sess *session.Session, stdin io.Reader, stdout, stderr io.Writer) int {
	f, isFile := stdin.(*os.File)
	if !isFile || !isTerminal(f) {
		return replPlain(sess, stdin, stderr)
	}
	home, _ := os.UserHomeDir()
	var buf strings.Builder // the lines of the statement being typed
	rl, err := readline.NewEx(&readline.Config{
		Prompt:          prompt,
		HistoryFile:     filepath.Join(home, ".ptfsh_history"),
		InterruptPrompt: "^C",
		// A statement of several lines is one history entry.
		DisableAutoSaveHistory: true,
		EOFPrompt:              "",
		AutoComplete:           completer{cat: sess.Catalog(), typed: func() string { return buf.String() }},
		Stdout:                 stdout,
		Stderr:                 stderr,
	})
	if err != nil {
		return replPlain(sess, stdin, stderr)
	}
	defer rl.Close()
	fmt.Fprintln(stderr, "ptfsh — Process Table Functions without a cluster. End statements with ';'; HELP; lists them, Ctrl-D quits.")
	if home != "" {
		if quit := runRC(sess, filepath.Join(home, rcFile), stderr); quit {
			return 0
		}
	}
	sess.SetInteractive(true)
	sess.SetPredict(func(step string) ([]string, bool) {
		fmt.Fprint(stderr, sess.PredictPrompt(step))
		rl.SetPrompt("guess> ")
		defer rl.SetPrompt(prompt)
		var rows []string
		for {
			line, err := rl.Readline()
			if errors.Is(err, readline.ErrInterrupt) {
				return nil, false // Ctrl-C: no guess this time
			}
			if err != nil || strings.TrimSpace(line) == "" {
				return rows, true
			}
			rows = append(rows, line)
		}
	})
	for {
		line, err := rl.Readline()
		if errors.Is(err, readline.ErrInterrupt) {
			buf.Reset()
			rl.SetPrompt(prompt)
			continue
		}
		if err != nil { // io.EOF: Ctrl-D
			return 0
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
		if !sqlmini.Complete(buf.String()) {
			if strings.TrimSpace(buf.String()) != "" {
				rl.SetPrompt(contPrompt)
			} else {
				buf.Reset()
			}
			continue
		}
		saveHistory(rl, buf.String())
		if quit := execInteractive(sess, buf.String(), stdout, stderr); quit {
			return 0
		}
		buf.Reset()
		rl.SetPrompt(prompt)
	}
}

// runRC runs the statements of the rc file at path, if there is one, as
// the REPL runs statements: an error is printed with the file's name and
// position, and the next statement runs. Relative paths in it resolve
// against its folder. It reports whether the file said QUIT or EXIT.
func runRC(sess *session.Session, path string, stderr io.Writer) (quit bool) {
	src, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	if err != nil {
		fmt.Fprintf(stderr, "ptfsh: %v\n", err)
		return false
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return errors.Is(sess.ExecEach(ctx, path, string(src), stderr), session.ErrQuit)
}

func replPlain(sess *session.Session, stdin io.Reader, stderr io.Writer) int {
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	// Predict mode reads the guess from the next lines, to an empty one.
	sess.SetPredict(func(step string) ([]string, bool) {
		fmt.Fprint(stderr, sess.PredictPrompt(step))
		var rows []string
		for sc.Scan() && strings.TrimSpace(sc.Text()) != "" {
			rows = append(rows, sc.Text())
		}
		return rows, true
	})
	var buf strings.Builder
	for sc.Scan() {
		buf.WriteString(sc.Text())
		buf.WriteByte('\n')
		if sqlmini.Complete(buf.String()) {
			if quit := execInteractive(sess, buf.String(), nil, stderr); quit {
				return 0
			}
			buf.Reset()
		}
	}
	if strings.TrimSpace(buf.String()) != "" {
		execInteractive(sess, buf.String(), nil, stderr)
	}
	return 0
}

// execInteractive runs statements with Ctrl-C cancelling them, not the
// shell. Each statement runs even when one before it failed; QUIT or
// EXIT ends them, and the shell (quit).
func execInteractive(sess *session.Session, src string, stdout, stderr io.Writer) (quit bool) {
	ctx, stop := interruptible(sess)
	defer stop()
	for _, p := range sqlmini.ParseEach("", src) {
		err := p.Err
		if err == nil {
			err = execPaged(ctx, sess, p.Stmt, stdout, stderr)
		}
		if errors.Is(err, session.ErrQuit) {
			return true
		}
		if err != nil {
			fmt.Fprint(stderr, session.FormatError(err, src))
		}
		if stdout != nil { // a person at the terminal: each extension once a session
			fmt.Fprint(stderr, session.ExtensionSummary(sess.Extensions()))
		}
	}
	return false
}

// execPaged runs a statement, its result through the pager that SET
// 'ptfsh.pager' names (pager.go), if any and if stdout, the terminal, is
// given.
func execPaged(ctx context.Context, sess *session.Session, st *sqlmini.Statement, stdout, stderr io.Writer) error {
	command := pagerCommand(sess)
	if stdout == nil || command == "" || !paged(st) { // no pager without a terminal
		return sess.ExecStatement(ctx, st)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopPager, err := startPager(sess, command, stdout, cancel)
	if err != nil {
		fmt.Fprintf(stderr, "note: the pager %q did not start (%v); the result prints as it is\n", command, err)
		return sess.ExecStatement(ctx, st)
	}
	err = sess.ExecStatement(ctx, st)
	if stopPager() || errors.Is(err, syscall.EPIPE) {
		return nil // q in the pager ended the result
	}
	return err
}

// saveHistory keeps what was typed for a statement as one history entry
// (the history file keeps an entry a line): its lines joined so that
// they read as the same statement (see [sqlmini.OneLine]), so that Up
// recalls it whole and Enter runs it again. Where that cannot be (a $$
// body of several lines: JavaScript gives meaning to its line breaks),
// each line is an entry.
func saveHistory(rl *readline.Instance, stmt string) {
	if line, ok := sqlmini.OneLine(stmt); ok {
		if line != "" {
			rl.SaveHistory(line)
		}
		return
	}
	for _, line := range strings.Split(strings.TrimRight(stmt, "\n"), "\n") {
		rl.SaveHistory(line)
	}
}

// isTerminalWriter reports whether w is a terminal.
func isTerminalWriter(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminal(f)
}

// isTerminal reports whether f is a terminal: a character device that
// answers a terminal's ioctl, which /dev/null does not.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0 && readline.IsTerminal(int(f.Fd()))
}
