package tests

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/state"
)

const timelineFn = `export default {
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  eval(ctx, state, { input }) { ctx.timeContext().registerOnTime("ping", ctx.timeContext().time() + 60_000); },
  onTimer(ctx) { ctx.collect("ping"); },
};
`

const timelineTable = `CREATE FUNCTION PingLater AS 'ping.js';
CREATE TABLE Clicks (id STRING, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts)
AS VALUES ('a', TIMESTAMP '2025-03-27 12:00:00'), ('b', TIMESTAMP '2025-03-27 12:00:10'),
          WATERMARK TIMESTAMP '2025-03-27 12:01:05', ('a', TIMESTAMP '2025-03-27 12:00:20');
`

// TestTimelineFiles: SET 'ptfsh.timeline' makes each query after it draw its
// timeline into the file, SVG or HTML by the file's ending, while the
// query prints its rows as ever.
func TestTimelineFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ping.js"), []byte(timelineFn), 0o644); err != nil {
		t.Fatal(err)
	}
	out := RunScript(t, dir, timelineTable+`
SET 'ptfsh.format' = 'rows';
SET 'ptfsh.timeline' = 'pics/none.svg';
SELECT * FROM PingLater(input => TABLE Clicks PARTITION BY id, on_time => DESCRIPTOR(ts));
SET 'ptfsh.timeline' = 'out.svg';
SELECT * FROM PingLater(input => TABLE Clicks PARTITION BY id, on_time => DESCRIPTOR(ts));
SET 'ptfsh.timeline' = 'out.html';
SELECT * FROM PingLater(input => TABLE Clicks PARTITION BY id, on_time => DESCRIPTOR(ts));
SET 'ptfsh.timeline' = 'out.png';
RESET 'ptfsh.timeline';
SELECT * FROM PingLater(input => TABLE Clicks PARTITION BY id, on_time => DESCRIPTOR(ts));
`)
	for _, want := range []string{
		"+I[b, ping, 2025-03-27T12:01:10Z]",
		"+I[a, ping, 2025-03-27T12:01:20Z]\nnote: timeline of 16 events written to out.svg\n",
		"note: timeline of 16 events written to out.html\n",
		"query.sql:8:1: SET 'ptfsh.timeline': cannot write the timeline to pics/none.svg: no such file or directory (SET it to a file in a folder you can write, or RESET it)\n",
		"SET 'ptfsh.timeline' names a file ending in .svg or .html (the picture's format), not 'out.png'",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "written to"); n != 2 {
		// pics/none.svg: its folder does not exist, which the query says; the last query after RESET writes none
		t.Errorf("%d timelines written, want 2:\n%s", n, out)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "out.svg"))
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "out.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(svg, []byte("<?xml")) || !bytes.HasPrefix(page, []byte("<!DOCTYPE html>")) {
		t.Errorf("out.svg starts %q, out.html %q", svg[:20], page[:20])
	}
	// The picture: lanes a and b, the late row's tooltip, the legend.
	keys := map[string]bool{}
	d := xml.NewDecoder(bytes.NewReader(svg))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("out.svg: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			for _, a := range se.Attr {
				if a.Name.Local == "data-key" {
					keys[a.Value] = true
				}
			}
		}
	}
	if !keys["a"] || !keys["b"] || len(keys) != 2 {
		t.Errorf("lanes %v, want a and b", keys)
	}
	for _, want := range []string{"late row +I[a, 2025-03-27T12:00:20Z] from Clicks at 2025-03-27 12:00:20, at or before the watermark 2025-03-27 12:01:05", `id="legend"`, "timer ping fired at 2025-03-27 12:01:10"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("out.svg lacks %q", want)
		}
	}
}

// TestTimelineParallel: a timeline runs the calls on one worker and says so.
func TestTimelineParallel(t *testing.T) {
	dir := t.TempDir()
	fn := `export default { output: "STRING", args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  eval(ctx, state, { input }) { ctx.collect(input.id); } };`
	if err := os.WriteFile(filepath.Join(dir, "echo.js"), []byte(fn), 0o644); err != nil {
		t.Fatal(err)
	}
	store := state.NewMem()
	defer store.Close()
	out := runScriptParallel(t, dir, "query.sql", `CREATE FUNCTION echo AS 'echo.js';
CREATE VIEW v(id) AS VALUES ('a'), ('b'), ('a');
EXPLAIN TIMELINE SELECT * FROM echo(input => TABLE v PARTITION BY id);`, store, 4)
	for _, want := range []string{
		"note: echo ran on 1 worker (parallelism 4): a timeline",
		"no event times",
		"2 keys; 3 rows in; 3 rows out",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestTimelineFiles_arrival: with SET 'ptfsh.timeline.view' = 'arrival'
// the file draws event time against arrival time: the rows as points, the
// watermark as a curve, both axes named.
func TestTimelineFiles_arrival(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ping.js"), []byte(timelineFn), 0o644); err != nil {
		t.Fatal(err)
	}
	out := RunScript(t, dir, timelineTable+`
SET 'ptfsh.timeline.view' = 'arrival';
SET 'ptfsh.timeline' = 'out.html';
SELECT * FROM PingLater(input => TABLE Clicks PARTITION BY id, on_time => DESCRIPTOR(ts));
`)
	if !strings.Contains(out, "note: timeline of 16 events written to out.html\n") {
		t.Errorf("output:\n%s", out)
	}
	page, err := os.ReadFile(filepath.Join(dir, "out.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`class="arrival-view"`, `class="wm-curve"`, `class="pt-in"`, `class="pt-late"`, ">event time</text>", ">arrival time</text>",
		"late row +I[a, 2025-03-27T12:00:20Z] from Clicks at 2025-03-27 12:00:20, at or before the watermark 2025-03-27 12:01:05"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("out.html lacks %q", want)
		}
	}
}
