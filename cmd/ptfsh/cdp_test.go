package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// browser drives headless Chromium through the DevTools protocol over a
// pipe (--remote-debugging-pipe: JSON messages ended by a NUL byte, the
// browser reading fd 3 and writing fd 4), so that the playground's test
// needs no library and no network: only Debian's chromium.
type browser struct {
	t       *testing.T
	cmd     *exec.Cmd
	in      io.WriteCloser
	mu      sync.Mutex
	id      int
	pending map[int]chan cdpReply
	closed  chan struct{}
	stderr  strings.Builder
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// chromiumBin finds the browser, or "" when there is none.
func chromiumBin() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// startBrowser starts the browser headless with the flags that work on a
// machine without a network (no background requests, no sync).
func startBrowser(t *testing.T, bin string) *browser {
	t.Helper()
	toBrowserR, toBrowserW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromBrowserR, fromBrowserW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	b := &browser{t: t, in: toBrowserW, pending: map[int]chan cdpReply{}, closed: make(chan struct{})}
	b.cmd = exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--remote-debugging-pipe", "--window-size=1400,1000", "--user-data-dir="+filepath.Join(t.TempDir(), "profile"), "about:blank")
	b.cmd.ExtraFiles = []*os.File{toBrowserR, fromBrowserW}
	b.cmd.Stderr = &lockedWriter{w: &b.stderr}
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toBrowserR.Close()
	fromBrowserW.Close()
	go b.read(fromBrowserR)
	t.Cleanup(b.close)
	return b
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (b *browser) read(r io.Reader) {
	defer close(b.closed)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m struct {
			ID int `json:"id"`
			cdpReply
		}
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil || m.ID == 0 {
			continue // an event
		}
		b.mu.Lock()
		ch := b.pending[m.ID]
		delete(b.pending, m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m.cdpReply
		}
	}
}

func (b *browser) close() {
	b.in.Close()
	select {
	case <-b.closed:
	case <-time.After(5 * time.Second):
	}
	if b.cmd.Process != nil {
		b.cmd.Process.Kill()
	}
	b.cmd.Wait()
}

// call sends a command (to a page's session when session is not "") and
// waits for its result.
func (b *browser) call(session, method string, params any) (json.RawMessage, error) {
	b.mu.Lock()
	b.id++
	id := b.id
	ch := make(chan cdpReply, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	if _, err := b.in.Write(append(data, 0)); err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, r.Error.Message)
		}
		return r.Result, nil
	case <-time.After(60 * time.Second):
		return nil, fmt.Errorf("%s: no answer in 60 s (browser's stderr: %s)", method, b.stderr.String())
	case <-b.closed:
		return nil, fmt.Errorf("%s: the browser ended (stderr: %s)", method, b.stderr.String())
	}
}

// page is a browser tab.
type page struct {
	b       *browser
	session string
}

// open opens url in a new tab.
func (b *browser) open(url string) *page {
	b.t.Helper()
	res, err := b.call("", "Target.createTarget", map[string]any{"url": url})
	if err != nil {
		b.t.Fatal(err)
	}
	var target struct {
		TargetID string `json:"targetId"`
	}
	json.Unmarshal(res, &target)
	res, err = b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true})
	if err != nil {
		b.t.Fatal(err)
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(res, &att)
	return &page{b: b, session: att.SessionID}
}

// eval evaluates a JavaScript expression in the page (awaiting a
// promise) and decodes its value into v.
func (p *page) eval(expr string, v any) error {
	res, err := p.b.call(p.session, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true})
	if err != nil {
		return err
	}
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return err
	}
	if r.Exception != nil {
		return fmt.Errorf("%s: %s %s", expr, r.Exception.Text, r.Exception.Exception.Description)
	}
	if v == nil || len(r.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(r.Result.Value, v)
}

// must evaluates expr, failing the test on an error.
func (p *page) must(expr string) {
	p.b.t.Helper()
	if err := p.eval(expr, nil); err != nil {
		p.b.t.Fatal(err)
	}
}

// str evaluates expr to a string.
func (p *page) str(expr string) string {
	p.b.t.Helper()
	var s string
	if err := p.eval(expr, &s); err != nil {
		p.b.t.Fatal(err)
	}
	return s
}

// waitFor waits until the JavaScript condition is true.
func (p *page) waitFor(what, cond string) {
	p.b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		var ok bool
		err := p.eval("!!("+cond+")", &ok)
		if err == nil && ok {
			return
		}
		select {
		case <-ctx.Done():
			p.b.t.Fatalf("waiting for %s (%s): %v\noutput:\n%s", what, cond, err, p.str(`document.getElementById("output") ? document.getElementById("output").textContent : document.body.textContent`))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// screenshot saves the page as a PNG in the folder PTFSH_BROWSER_DIR
// names, when it is set (to look at what the test saw).
func (p *page) screenshot(name string) {
	dir := os.Getenv("PTFSH_BROWSER_DIR")
	if dir == "" {
		return
	}
	res, err := p.b.call(p.session, "Page.captureScreenshot", map[string]any{"format": "png"})
	if err != nil {
		p.b.t.Logf("screenshot %s: %v", name, err)
		return
	}
	var r struct {
		Data []byte `json:"data"`
	}
	if err := json.Unmarshal(res, &r); err == nil {
		os.WriteFile(filepath.Join(dir, name+".png"), r.Data, 0o644)
	}
}
