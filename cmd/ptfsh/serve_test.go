package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/playground"
)

// servePlayground serves the playground over the examples for a test.
func servePlayground(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	examples, err := filepath.Abs(filepath.Join("..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := playground.New(playgroundOptions(examples))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { ts.Close(); srv.Close() })
	return ts, srv.Token()
}

// post calls the playground and returns the status and the body.
func post(t *testing.T, ts *httptest.Server, token, path string, body any) (int, string) {
	t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", ts.URL+path, bytes.NewReader(data))
	req.Header.Set("X-Ptfsh-Token", token)
	res, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// streamed joins the text of a streaming answer's lines by kind.
func streamed(t *testing.T, body string) (out, errs, timeline string, done bool) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("not a JSON line: %q", sc.Text())
		}
		if s, ok := ev["out"].(string); ok {
			out += s
		}
		if s, ok := ev["err"].(string); ok {
			errs += s
		}
		if s, ok := ev["timeline"].(string); ok {
			timeline = s
		}
		if ev["done"] == true {
			done = true
		}
	}
	return
}

func newTab(t *testing.T, ts *httptest.Server, token string) string {
	t.Helper()
	code, body := post(t, ts, token, "/api/tab", map[string]any{})
	var r struct{ Tab string }
	if code != 200 || json.Unmarshal([]byte(body), &r) != nil || r.Tab == "" {
		t.Fatalf("a new tab: %d %s", code, body)
	}
	return r.Tab
}

// TestServe_token: the page and every call need the token; a request for
// another host name is refused (a site that points its own name at
// 127.0.0.1 cannot reach it); the server listens on loopback only.
func TestServe_token(t *testing.T) {
	ts, token := servePlayground(t)
	for _, c := range []struct {
		url, header string
		want        int
	}{
		{ts.URL + "/", "", 403},
		{ts.URL + "/?token=nope", "", 403},
		{ts.URL + "/?token=" + token, "", 200},
	} {
		res, err := ts.Client().Get(c.url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != c.want {
			t.Errorf("GET %s: %d, want %d", c.url, res.StatusCode, c.want)
		}
		if c.want == 200 {
			csp := res.Header.Get("Content-Security-Policy")
			if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "connect-src 'self'") {
				t.Errorf("the page's CSP lets it reach elsewhere: %q", csp)
			}
			for _, bad := range []string{"http://", "https://", "<link", " src="} {
				if strings.Contains(string(body), bad) {
					t.Errorf("the page refers to %q: it must be self-contained", bad)
				}
			}
		}
	}
	if code, body := post(t, ts, "wrong", "/api/tab", map[string]any{}); code != 403 || !strings.Contains(body, "token") {
		t.Errorf("a call without the token: %d %s", code, body)
	}
	req, _ := http.NewRequest("GET", ts.URL+"/?token="+token, nil)
	req.Host = "evil.example:80"
	if res, err := ts.Client().Do(req); err != nil || res.StatusCode != 403 {
		t.Errorf("a request for another host: %v %v", res.StatusCode, err)
	}
	for _, addr := range []string{"0.0.0.0:0", "192.168.1.1:8765", ":8765"} {
		if ln, err := playground.Listen(addr); err == nil {
			ln.Close()
			t.Errorf("Listen(%q) listens: only loopback addresses may", addr)
		}
	}
}

// TestServe_tabs: each tab has its own session and files; a tab runs its
// script and streams what it prints and the timeline; Stop cancels a
// running statement; names outside the tab's folder are refused.
func TestServe_tabs(t *testing.T) {
	ts, token := servePlayground(t)
	a, b := newTab(t, ts, token), newTab(t, ts, token)
	code, body := post(t, ts, token, "/api/run", map[string]any{"tab": a, "script": "script.sql"})
	out, errs, tl, done := streamed(t, body)
	if code != 200 || !done || !strings.Contains(errs, "the query keeps running on door") || !strings.Contains(tl, `<svg id="timeline"`) {
		t.Fatalf("tab a's script: %d out %q errs %q timeline %d bytes", code, out, errs, len(tl))
	}
	_, body = post(t, ts, token, "/api/exec", map[string]any{"tab": a, "sql": "ADVANCE WATERMARK door TO TIMESTAMP '2025-03-27 12:01:05';"})
	if out, _, _, _ := streamed(t, body); out != "+I[Bob, thanks for your visit, 2025-03-27T12:01:00Z]\n" {
		t.Errorf("tab a's step: %q", out)
	}
	_, body = post(t, ts, token, "/api/exec", map[string]any{"tab": b, "sql": "ADVANCE WATERMARK door TO TIMESTAMP '2025-03-27 12:01:05';"})
	if _, errs, _, _ := streamed(t, body); !strings.Contains(errs, "Object 'door' not found") {
		t.Errorf("tab b sees tab a's stream: %q", errs)
	}
	_, body = post(t, ts, token, "/api/inspect", map[string]any{"tab": a})
	if !strings.Contains(body, `"uids":["door"]`) || !strings.Contains(body, "(Alice)") {
		t.Errorf("tab a's panes: %s", body)
	}
	// A paced table: Stop cancels it.
	go func() {
		time.Sleep(500 * time.Millisecond)
		post(t, ts, token, "/api/stop", map[string]any{"tab": b})
	}()
	start := time.Now()
	_, body = post(t, ts, token, "/api/exec", map[string]any{"tab": b, "sql": "CREATE TABLE slow (n INT) WITH ('connector' = 'datagen', 'rows-per-second' = '1'); SELECT * FROM slow;"})
	if _, errs, _, _ := streamed(t, body); !strings.Contains(errs, "statement cancelled") || time.Since(start) > 20*time.Second {
		t.Errorf("Stop: %q after %v", errs, time.Since(start))
	}
	for _, name := range []string{"../evil.js", "/etc/passwd.sql", "a/b.js", "x.sh"} {
		if code, body := post(t, ts, token, "/api/run", map[string]any{"tab": a, "files": []map[string]string{{"name": name, "text": "x"}}, "script": "script.sql"}); code != 400 {
			t.Errorf("a file named %q: %d %s", name, code, body)
		}
	}
	if code, _ := post(t, ts, token, "/api/run", map[string]any{"tab": "nope", "script": "script.sql"}); code != 404 {
		t.Errorf("an unknown tab: %d", code)
	}
}

// TestServe_lessons: the catalog lists the lessons and labs with their
// exercises; a tab opens one and runs its exercise: the stub fails with a
// hint and without the expected lines, more hints come when asked, and a
// solution passes.
func TestServe_lessons(t *testing.T) {
	ts, token := servePlayground(t)
	req, _ := http.NewRequest("GET", ts.URL+"/api/catalog", nil)
	req.Header.Set("X-Ptfsh-Token", token)
	res, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var cat struct {
		Lessons []playground.Lesson
	}
	json.NewDecoder(res.Body).Decode(&cat)
	res.Body.Close()
	exercises := 0
	for _, l := range cat.Lessons {
		exercises += len(l.Exercises)
	}
	if len(cat.Lessons) != 9 || exercises != 13 {
		t.Fatalf("the catalog: %d lessons and labs, %d exercises: %+v", len(cat.Lessons), exercises, cat.Lessons)
	}
	tab := newTab(t, ts, token)
	code, body := post(t, ts, token, "/api/open", map[string]any{"tab": tab, "lesson": "labs/4-long-ride-alerts"})
	if code != 200 || !strings.Contains(body, `"name":"long_rides.js"`) || strings.Contains(body, "solutions") {
		t.Fatalf("open the lab: %d %.300s", code, body)
	}
	code, body = post(t, ts, token, "/api/run", map[string]any{"tab": tab, "script": "lab.sql"})
	if out, _, tl, _ := streamed(t, body); code != 200 || !strings.Contains(out, "+I[1427, 720, 707]") || tl == "" {
		t.Errorf("the lab's script: %d %.300s", code, out)
	}
	testIt := func(files []map[string]string, hints int) (bool, string) {
		t.Helper()
		code, body := post(t, ts, token, "/api/test", map[string]any{"tab": tab, "exercise": "labs/4-long-ride-alerts/long_rides", "files": files, "hints": hints})
		var r struct {
			Passed  bool
			Message string
		}
		if code != 200 || json.Unmarshal([]byte(body), &r) != nil {
			t.Fatalf("test: %d %s", code, body)
		}
		return r.Passed, r.Message
	}
	passed, msg := testIt(nil, 1)
	if passed || !strings.Contains(msg, "hint 1 of 3") || strings.Contains(msg, "hint 2 of 3") || strings.Contains(msg, "  -  ") {
		t.Errorf("the stub:\n%s", msg)
	}
	if _, msg := testIt(nil, 3); !strings.Contains(msg, "hint 3 of 3") {
		t.Errorf("three hints:\n%s", msg)
	}
	solution, err := os.ReadFile(filepath.Join("..", "..", "examples", "labs", "4-long-ride-alerts", "solutions", "long_rides.js"))
	if err != nil {
		t.Fatal(err)
	}
	if passed, msg := testIt([]map[string]string{{"name": "long_rides.js", "text": string(solution)}}, 1); !passed {
		t.Errorf("the solution fails:\n%s", msg)
	}
	if code, body := post(t, ts, token, "/api/test", map[string]any{"tab": tab, "exercise": "lessons/1-event-time/exercise"}); code != 400 {
		t.Errorf("an exercise of a lesson not open: %d %s", code, body)
	}
}
