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

	"github.com/chzyer/readline"
	"github.com/ptfsh/ptfsh/runtime/session"
	"github.com/ptfsh/ptfsh/sqlmini"
)

const (
	prompt     = "ptfsh> "
	contPrompt = "     > "
)

// repl reads statements until end of input. An error is printed and the
// shell goes on. With a terminal it uses readline (history, line editing);
// otherwise it reads plain lines without a prompt.
func repl(sess *session.Session, stdin io.Reader, stdout, stderr io.Writer) int {
	f, isFile := stdin.(*os.File)
	if !isFile || !isTerminal(f) {
		return replPlain(sess, stdin, stderr)
	}
	home, _ := os.UserHomeDir()
	rl, err := readline.NewEx(&readline.Config{
		Prompt:          prompt,
		HistoryFile:     filepath.Join(home, ".ptfsh_history"),
		InterruptPrompt: "^C",
		// A statement of several lines is one history entry.
		DisableAutoSaveHistory: true,
		EOFPrompt:              "",
		AutoComplete:           completer{cat: sess.Catalog()},
		Stdout:                 stdout,
		Stderr:                 stderr,
	})
	if err != nil {
		return replPlain(sess, stdin, stderr)
	}
	defer rl.Close()
	fmt.Fprintln(stderr, "ptfsh — Process Table Functions without a cluster. End statements with ';', Ctrl-D quits.")
	var buf strings.Builder
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
		execInteractive(sess, buf.String(), stderr)
		buf.Reset()
		rl.SetPrompt(prompt)
	}
}

func replPlain(sess *session.Session, stdin io.Reader, stderr io.Writer) int {
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var buf strings.Builder
	for sc.Scan() {
		buf.WriteString(sc.Text())
		buf.WriteByte('\n')
		if sqlmini.Complete(buf.String()) {
			execInteractive(sess, buf.String(), stderr)
			buf.Reset()
		}
	}
	if strings.TrimSpace(buf.String()) != "" {
		execInteractive(sess, buf.String(), stderr)
	}
	return 0
}

// execInteractive runs statements with Ctrl-C cancelling them, not the
// shell. Each statement runs even when one before it failed.
func execInteractive(sess *session.Session, src string, stderr io.Writer) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	for _, p := range sqlmini.ParseEach("", src) {
		err := p.Err
		if err == nil {
			err = sess.ExecStatement(ctx, p.Stmt)
		}
		if err != nil {
			fmt.Fprint(stderr, session.FormatError(err, src))
		}
	}
}

// saveHistory keeps a statement as one history entry, its lines joined.
// A $$ body keeps its lines (joining them would let a // comment swallow
// the code after it).
func saveHistory(rl *readline.Instance, stmt string) {
	if strings.Contains(stmt, "$$") {
		for _, line := range strings.Split(strings.TrimRight(stmt, "\n"), "\n") {
			rl.SaveHistory(line)
		}
		return
	}
	rl.SaveHistory(strings.Join(strings.Fields(stmt), " "))
}
