package playground

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ptfsh/ptfsh/runtime/timeline"
)

// A tab's workspace is a temporary folder laid out as examples/ is: the
// starter files in playground/, an opened lesson or lab at its own path
// (lessons/1-event-time, labs/2-rides-and-fares), and links to the
// examples' data folders (data, labs/data), so that the relative paths of
// a lesson's files read what they read in examples/.

// starterScript is the file a new tab opens with.
const starterScript = "script.sql"

// starter are a new tab's files: a function and a stream to step.
var starter = []File{{Name: "follow_up.js", Text: `// FollowUp thanks a visitor one minute after their last visit: a named
// timer that every visit moves on.
export default {
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { visit: { default: { visits: 0 } } },
  eval(ctx, { visit }, { input }) {
    visit.visits++;
    ctx.timeContext().registerOnTime("followUp", ctx.timeContext().time() + 60_000);
  },
  onTimer(ctx, { visit }) {
    ctx.collect(visit.visits === 1 ? "thanks for your visit" : ` + "`thanks for your ${visit.visits} visits`" + `);
  },
};
`}, {Name: starterScript, Text: `-- Run it, then step the stream with the controls below: insert a row,
-- advance the watermark, and watch what the query emits and its timeline.
SET 'ptfsh.format' = 'rows';
CREATE FUNCTION FollowUp AS 'follow_up.js';
CREATE STREAM door (name STRING, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND);
SELECT * FROM FollowUp(input => TABLE door PARTITION BY name, on_time => DESCRIPTOR(ts), uid => 'door');
INSERT INTO door VALUES ('Bob', TIMESTAMP '2025-03-27 12:00:00'), ('Alice', TIMESTAMP '2025-03-27 12:00:10');
`}}

// tab is one browser tab's session: its workspace and shell, and the
// statement it runs.
type tab struct {
	id    string
	opts  Options
	root  string // the workspace
	home  string // where the tab's files are: root/playground, or an opened lesson's folder
	label string // the opened lesson's id, "" for the starter

	mu     sync.Mutex // guards the fields below
	shell  Shell
	busy   bool
	cancel context.CancelFunc
	sink   func(kind, text string) // where the shell's output goes now
	guess  []string                // predict mode's guess for the running step
	hasGu  bool
	used   time.Time
}

func newTab(opts Options) (*tab, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	root, err := os.MkdirTemp("", "ptfsh-serve-")
	if err != nil {
		return nil, err
	}
	t := &tab{id: hex.EncodeToString(b), opts: opts, root: root, home: filepath.Join(root, "playground"), used: time.Now()}
	if err := os.MkdirAll(t.home, 0o755); err != nil {
		return nil, err
	}
	t.linkData()
	if err := t.write(starter); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *tab) touch() {
	t.mu.Lock()
	t.used = time.Now()
	t.mu.Unlock()
}

func (t *tab) idleSince() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.busy {
		return 0
	}
	return time.Since(t.used)
}

// close stops the running statement and removes the workspace.
func (t *tab) close() {
	t.stopRunning()
	t.mu.Lock()
	sh := t.shell
	t.shell = nil
	t.mu.Unlock()
	if sh != nil {
		sh.Close()
	}
	os.RemoveAll(t.root)
}

// linkData links the examples' data folders into the workspace.
func (t *tab) linkData() {
	if t.opts.Examples == "" {
		return
	}
	for _, rel := range []string{"data", filepath.Join("labs", "data")} {
		src := filepath.Join(t.opts.Examples, rel)
		if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
			continue
		}
		dst := filepath.Join(t.root, rel)
		os.MkdirAll(filepath.Dir(dst), 0o755)
		if _, err := os.Lstat(dst); err == nil {
			continue
		}
		if abs, err := filepath.Abs(src); err == nil {
			os.Symlink(abs, dst)
		}
	}
}

// open copies a lesson or lab into the workspace and starts a fresh
// session there.
func (t *tab) open(examples string, l *Lesson) error {
	t.mu.Lock()
	if t.busy {
		t.mu.Unlock()
		return &apiError{http.StatusConflict, "a statement is running in this tab: stop it first"}
	}
	sh := t.shell
	t.shell = nil
	t.mu.Unlock()
	if sh != nil {
		sh.Close()
	}
	src := filepath.Join(examples, filepath.FromSlash(l.ID))
	dst := filepath.Join(t.root, filepath.FromSlash(l.ID))
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() || strings.HasSuffix(e.Name(), ".out") {
			continue // solutions stay out of the learner's folder
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	t.mu.Lock()
	t.home, t.label = dst, l.ID
	t.mu.Unlock()
	return nil
}

// editable reports whether the page may read and write a file of a tab.
func editable(name string) bool {
	if name == "" || !filepath.IsLocal(name) || strings.ContainsAny(name, `/\`) {
		return false
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".sql", ".js", ".ts", ".mjs", ".csv", ".json", ".txtar":
		return true
	}
	return false
}

// maxFiles bounds how many files a tab keeps.
const maxFiles = 64

// write saves the page's files in the tab's folder.
func (t *tab) write(files []File) error {
	if len(files) > maxFiles {
		return badRequest("%d files: a tab keeps at most %d", len(files), maxFiles)
	}
	t.mu.Lock()
	home := t.home
	t.mu.Unlock()
	for _, f := range files {
		if !editable(f.Name) {
			return badRequest("%q is not a file name the playground keeps: a name without folders ending in .sql, .js, .ts, .csv, .json or .txtar", f.Name)
		}
		if strings.HasSuffix(f.Name, ".txtar") {
			continue // exercises are read, not written
		}
		if err := os.WriteFile(filepath.Join(home, f.Name), []byte(f.Text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// read returns the text of a file of the tab.
func (t *tab) read(name string) (string, error) {
	if !editable(name) {
		return "", badRequest("%q is not a file of this tab", name)
	}
	t.mu.Lock()
	home := t.home
	t.mu.Unlock()
	b, err := os.ReadFile(filepath.Join(home, name))
	if err != nil {
		return "", badRequest("no file %q in this tab", name)
	}
	return string(b), nil
}

// files lists the tab's editable files (exercise files read-only, with a
// flag).
func (t *tab) files() ([]map[string]any, error) {
	t.mu.Lock()
	home := t.home
	t.mu.Unlock()
	entries, err := os.ReadDir(home)
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for _, e := range entries {
		if e.IsDir() || !editable(e.Name()) || strings.HasSuffix(e.Name(), ".txtar") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(home, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, map[string]any{"name": e.Name(), "text": string(b)})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i]["name"].(string), out[j]["name"].(string)
		if ea, eb := filepath.Ext(a), filepath.Ext(b); ea != eb {
			return ea > eb // .sql before .js
		}
		return a < b
	})
	return out, nil
}

// exercise finds an exercise of the opened lesson: its test file and the
// folder its functions come from.
func (t *tab) exercise(id string) (file, home string, err error) {
	t.mu.Lock()
	home, label := t.home, t.label
	t.mu.Unlock()
	dir, name := filepath.Split(filepath.FromSlash(id))
	if label == "" || filepath.Clean(dir) != filepath.FromSlash(label) || !editable(name+".txtar") {
		return "", "", badRequest("exercise %q is not one of the lesson open in this tab (open it from the menu)", id)
	}
	file = filepath.Join(home, name+".txtar")
	if _, err := os.Stat(file); err != nil {
		return "", "", badRequest("no exercise %q", id)
	}
	return file, home, nil
}

// ensureShell makes the tab's shell when it has none; the caller holds
// t.mu.
func (t *tab) ensureShell() error {
	if t.shell != nil {
		return nil
	}
	sh, err := t.opts.NewShell(t.home, writerTo(t, "out"), writerTo(t, "err"))
	if err != nil {
		return err
	}
	sess := sh.Session()
	sess.SetPredict(func(step string) ([]string, bool) {
		t.mu.Lock()
		defer t.mu.Unlock()
		if !t.hasGu {
			return nil, false
		}
		return t.guess, true
	})
	sess.SetTimelineSink(func(rec *timeline.Record, view timeline.View) {
		var b bytes.Buffer
		if err := timeline.SVGView(&b, rec, view); err == nil {
			// inline in the page: no XML prolog
			svg := b.String()
			if i := strings.Index(svg, "<svg"); i > 0 {
				svg = svg[i:]
			}
			t.emit("timeline", svg)
		}
	})
	t.shell = sh
	return nil
}

// writerTo is an io.Writer that sends what the shell writes to the tab's
// current sink.
type tabWriter struct {
	t    *tab
	kind string
}

func writerTo(t *tab, kind string) io.Writer { return &tabWriter{t, kind} }

func (w *tabWriter) Write(p []byte) (int, error) {
	w.t.emit(w.kind, string(p))
	return len(p), nil
}

func (t *tab) emit(kind, text string) {
	t.mu.Lock()
	sink := t.sink
	t.mu.Unlock()
	if sink != nil {
		sink(kind, text)
	}
}

// stream runs statements of src (from file name, "" for statements given
// alone) in the tab's session and streams what they print to w as JSON
// lines, then {"done": true}. guess, when not nil, answers predict mode's
// question for the step.
func (t *tab) stream(ctx context.Context, w http.ResponseWriter, name, src string, guess []string) error {
	t.mu.Lock()
	if t.busy {
		t.mu.Unlock()
		return &apiError{http.StatusConflict, "a statement is running in this tab: stop it first"}
	}
	if err := t.ensureShell(); err != nil {
		t.mu.Unlock()
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t.busy, t.cancel = true, cancel
	t.guess, t.hasGu = guess, guess != nil
	sess, home := t.shell.Session(), t.home
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	var wmu sync.Mutex
	enc := json.NewEncoder(w)
	send := func(v any) {
		wmu.Lock()
		defer wmu.Unlock()
		enc.Encode(v)
		if flusher != nil {
			flusher.Flush()
		}
	}
	t.sink = func(kind, text string) { send(map[string]string{kind: text}) }
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		t.busy, t.cancel, t.sink, t.guess, t.hasGu = false, nil, nil, nil, false
		t.used = time.Now()
		t.mu.Unlock()
	}()
	filename := name
	if filename == "" {
		filename = "statements.sql"
	}
	var errs bytes.Buffer
	err := sess.ExecEach(ctx, filepath.Join(home, filename), src, &errs)
	if errs.Len() > 0 {
		send(map[string]string{"err": strings.ReplaceAll(errs.String(), home+string(filepath.Separator), "")})
	}
	done := map[string]any{"done": true}
	if err != nil && ctx.Err() != nil {
		done["stopped"] = true
	}
	send(done)
	return nil
}

// stopRunning cancels the tab's running statement; false when none runs.
func (t *tab) stopRunning() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cancel == nil {
		return false
	}
	t.cancel()
	return true
}

// inspect answers what the stepping panes show: the streams, the running
// query's uids, and SHOW STATE and SHOW TIMERS for each.
func (t *tab) inspect(ctx context.Context) (map[string]any, error) {
	t.mu.Lock()
	if t.busy {
		t.mu.Unlock()
		return nil, &apiError{http.StatusConflict, "a statement is running in this tab"}
	}
	if err := t.ensureShell(); err != nil {
		t.mu.Unlock()
		return nil, err
	}
	t.busy = true
	sess := t.shell.Session()
	var out bytes.Buffer
	t.sink = func(kind, text string) { out.WriteString(text) }
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		t.busy, t.sink = false, nil
		t.mu.Unlock()
	}()
	streams, uids := sess.Running()
	show := func(what, uid string) string {
		out.Reset()
		var errs bytes.Buffer
		sess.ExecEach(ctx, "", fmt.Sprintf("SHOW %s FOR '%s';", what, strings.ReplaceAll(uid, "'", "''")), &errs)
		return out.String() + errs.String()
	}
	var state, timers strings.Builder
	for _, u := range uids {
		state.WriteString(show("STATE", u))
		timers.WriteString(show("TIMERS", u))
	}
	type stream struct {
		Name    string   `json:"name"`
		Columns []string `json:"columns"`
		Ended   bool     `json:"ended"`
	}
	var all []stream
	for _, s := range sess.Streams() {
		all = append(all, stream{s.Name, s.Columns, s.Ended})
	}
	return map[string]any{"streams": all, "running": streams, "uids": uids, "state": state.String(), "timers": timers.String()}, nil
}
