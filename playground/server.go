package playground

import (
	"crypto/rand"
	"crypto/subtle"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ptfsh/ptfsh/runtime/session"
)

// Shell is what a tab runs its statements in: a session over the engine
// and store it owns (the command builds it with assembly).
type Shell interface {
	// Session is the shell's session; it is not safe for concurrent use,
	// and the server calls it from one request at a time.
	Session() *session.Session
	// Close releases the engine and the store.
	Close() error
}

// Options configure a Server.
type Options struct {
	// NewShell makes the shell of a tab whose relative paths resolve in
	// dir; results go to out, notes and errors to errw.
	NewShell func(dir string, out, errw io.Writer) (Shell, error)
	// Test runs an exercise (a ptfsh test file) with the function files
	// of home, showing hints hints if it fails (and its expected output
	// when reveal), and says whether it passed and what it printed.
	Test func(file, home string, hints int, reveal bool) (passed bool, message string)
	// Examples is the folder of the lessons and labs (examples/); "" has
	// none.
	Examples string
	// Token is what every request must carry; "" makes a random one.
	Token string
	// Idle closes a tab unused for this long (0: an hour).
	Idle time.Duration
}

// Server serves the playground.
type Server struct {
	opts  Options
	token string
	mu    sync.Mutex
	tabs  map[string]*tab
	stop  chan struct{}
	once  sync.Once
}

// New returns a server; Close ends its tabs.
func New(opts Options) (*Server, error) {
	if opts.NewShell == nil {
		return nil, errors.New("playground: Options.NewShell is needed")
	}
	token := opts.Token
	if token == "" {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		token = hex.EncodeToString(b)
	}
	if opts.Idle <= 0 {
		opts.Idle = time.Hour
	}
	s := &Server{opts: opts, token: token, tabs: map[string]*tab{}, stop: make(chan struct{})}
	go s.sweep()
	return s, nil
}

// Token is the token a request must carry.
func (s *Server) Token() string { return s.token }

// Close ends every tab (their running statements, shells and
// workspaces).
func (s *Server) Close() error {
	s.once.Do(func() { close(s.stop) })
	s.mu.Lock()
	tabs := s.tabs
	s.tabs = map[string]*tab{}
	s.mu.Unlock()
	for _, t := range tabs {
		t.close()
	}
	return nil
}

// sweep closes the tabs unused for Options.Idle.
func (s *Server) sweep() {
	tick := time.NewTicker(time.Minute)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
		}
		s.mu.Lock()
		var old []*tab
		for id, t := range s.tabs {
			if t.idleSince() > s.opts.Idle {
				old = append(old, t)
				delete(s.tabs, id)
			}
		}
		s.mu.Unlock()
		for _, t := range old {
			t.close()
		}
	}
}

// Listen listens on addr, which must be a loopback address
// ("127.0.0.1:0" when empty): the playground runs the code it is given,
// and only the machine's own user may give it.
func Listen(addr string) (net.Listener, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("address %q: %w", addr, err)
	}
	if !loopbackName(host) {
		return nil, fmt.Errorf("address %q is not a loopback address: the playground runs the code it is given, so it listens on 127.0.0.1 (or ::1, localhost) only", addr)
	}
	return net.Listen("tcp", addr)
}

func loopbackName(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

//go:embed page.html
var page string

// maxBody bounds a request's body: the files of a tab.
const maxBody = 8 << 20

// Handler serves the page and the calls.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.handlePage)
	mux.HandleFunc("POST /api/tab", s.api(s.handleTab))
	mux.HandleFunc("GET /api/catalog", s.api(s.handleCatalog))
	mux.HandleFunc("POST /api/open", s.api(s.handleOpen))
	mux.HandleFunc("POST /api/run", s.api(s.handleRun))
	mux.HandleFunc("POST /api/exec", s.api(s.handleExec))
	mux.HandleFunc("POST /api/stop", s.api(s.handleStop))
	mux.HandleFunc("POST /api/test", s.api(s.handleTest))
	mux.HandleFunc("POST /api/inspect", s.api(s.handleInspect))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		if !loopbackName(host) {
			http.Error(w, "ptfsh serve answers requests for its loopback address only", http.StatusForbidden)
			return
		}
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		mux.ServeHTTP(w, r)
	})
}

// authorized reports whether a request carries the token.
func (s *Server) authorized(r *http.Request) bool {
	got := r.Header.Get("X-Ptfsh-Token")
	if got == "" {
		got = r.URL.Query().Get("token")
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}

func (s *Server) handlePage(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(r) {
		http.Error(w, "ptfsh serve: this page needs the token that the command printed when it started (open the whole address it printed, with ?token=...)", http.StatusForbidden)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'")
	w.Header().Set("Cache-Control", "no-store")
	io.WriteString(w, page)
}

// apiError is an error a call answers with its status.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &apiError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// api wraps a call: the token, the body's limit, and errors as JSON.
func (s *Server) api(f func(w http.ResponseWriter, r *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(r) {
			writeJSON(w, http.StatusForbidden, map[string]string{"error": "no token, or not this server's: reload the address the command printed"})
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		if err := f(w, r); err != nil {
			status := http.StatusInternalServerError
			var ae *apiError
			if errors.As(err, &ae) {
				status = ae.status
			}
			writeJSON(w, status, map[string]string{"error": err.Error()})
		}
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func readJSON(r *http.Request, v any) error {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		return badRequest("the request's body is not the JSON expected: %v", err)
	}
	return nil
}

// tabOf finds the tab a request names.
func (s *Server) tabOf(id string) (*tab, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tabs[id]
	if t == nil {
		return nil, &apiError{http.StatusNotFound, "no such tab (it was closed after an hour unused, or the server restarted): reload the page"}
	}
	t.touch()
	return t, nil
}

// File is a file of a tab, as the page edits it.
type File struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

func (s *Server) handleTab(w http.ResponseWriter, r *http.Request) error {
	t, err := newTab(s.opts)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.tabs[t.id] = t
	s.mu.Unlock()
	files, err := t.files()
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"tab": t.id, "files": files, "script": starterScript})
	return nil
}

func (s *Server) handleCatalog(w http.ResponseWriter, r *http.Request) error {
	lessons, err := Catalog(s.opts.Examples)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"lessons": lessons})
	return nil
}

func (s *Server) handleOpen(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Tab    string `json:"tab"`
		Lesson string `json:"lesson"`
	}
	if err := readJSON(r, &req); err != nil {
		return err
	}
	t, err := s.tabOf(req.Tab)
	if err != nil {
		return err
	}
	lessons, err := Catalog(s.opts.Examples)
	if err != nil {
		return err
	}
	var l *Lesson
	for i := range lessons {
		if lessons[i].ID == req.Lesson {
			l = &lessons[i]
		}
	}
	if l == nil {
		return badRequest("no lesson or lab %q", req.Lesson)
	}
	if err := t.open(s.opts.Examples, l); err != nil {
		return err
	}
	files, err := t.files()
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"files": files, "script": l.Script, "lesson": l})
	return nil
}

// runRequest is a call that runs statements in a tab.
type runRequest struct {
	Tab    string `json:"tab"`
	Files  []File `json:"files"`
	Script string `json:"script"` // /api/run: the file to run
	SQL    string `json:"sql"`    // /api/exec: the statements
	Guess  *struct {
		Rows []string `json:"rows"`
	} `json:"guess"` // predict mode's guess for the step
}

// runTab reads a run request and writes its files into its tab.
func (s *Server) runTab(r *http.Request) (*tab, runRequest, error) {
	var req runRequest
	if err := readJSON(r, &req); err != nil {
		return nil, req, err
	}
	t, err := s.tabOf(req.Tab)
	if err != nil {
		return nil, req, err
	}
	return t, req, t.write(req.Files)
}

func (s *Server) handleRun(w http.ResponseWriter, r *http.Request) error {
	t, req, err := s.runTab(r)
	if err != nil {
		return err
	}
	src, err := t.read(req.Script)
	if err != nil {
		return err
	}
	return t.stream(r.Context(), w, req.Script, src, nil)
}

func (s *Server) handleExec(w http.ResponseWriter, r *http.Request) error {
	t, req, err := s.runTab(r)
	if err != nil {
		return err
	}
	var guess []string
	if req.Guess != nil {
		guess = append([]string{}, req.Guess.Rows...)
	}
	return t.stream(r.Context(), w, "", req.SQL, guess)
}

func (s *Server) handleStop(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Tab string `json:"tab"`
	}
	if err := readJSON(r, &req); err != nil {
		return err
	}
	t, err := s.tabOf(req.Tab)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]bool{"stopped": t.stopRunning()})
	return nil
}

func (s *Server) handleTest(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Tab      string `json:"tab"`
		Exercise string `json:"exercise"`
		Files    []File `json:"files"`
		Hints    int    `json:"hints"`
		Reveal   bool   `json:"reveal"`
	}
	if err := readJSON(r, &req); err != nil {
		return err
	}
	if s.opts.Test == nil {
		return badRequest("this server runs no exercises")
	}
	t, err := s.tabOf(req.Tab)
	if err != nil {
		return err
	}
	file, home, err := t.exercise(req.Exercise)
	if err != nil {
		return err
	}
	if err := t.write(req.Files); err != nil {
		return err
	}
	passed, msg := s.opts.Test(file, home, max(req.Hints, 1), req.Reveal)
	msg = strings.ReplaceAll(msg, home+string(filepath.Separator), "")
	writeJSON(w, http.StatusOK, map[string]any{"passed": passed, "message": msg})
	return nil
}

func (s *Server) handleInspect(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Tab string `json:"tab"`
	}
	if err := readJSON(r, &req); err != nil {
		return err
	}
	t, err := s.tabOf(req.Tab)
	if err != nil {
		return err
	}
	res, err := t.inspect(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}
