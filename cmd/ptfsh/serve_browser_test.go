package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/playground"
)

// TestServe_browser drives the playground in headless Chromium as a class
// would: edit a function, run the script, step the stream (rows, the
// watermark, processing time), predict a
// step, switch the timeline to the arrival view, draw the 20,000 flights,
// draw window aggregations on both clocks, open a lesson and run its
// exercise until it passes. It checks the page
// by what its DOM holds (the timeline's points, curve and late marks by
// their elements, not by pixels), and that it loaded nothing from the
// network. It is opt-in, as it needs the browser (apt-get install
// chromium):
//
//	PTFSH_BROWSER=1 go test ./cmd/ptfsh -run Serve_browser -v
func TestServe_browser(t *testing.T) {
	if os.Getenv("PTFSH_BROWSER") == "" {
		t.Skip("set PTFSH_BROWSER=1 to drive the playground in headless Chromium")
	}
	bin := chromiumBin()
	if bin == "" {
		t.Skip("no chromium on PATH (apt-get install chromium)")
	}
	base := startPlayground(t)
	b := startBrowser(t, bin)
	p := b.open(base)
	p.waitFor("the page to connect", `document.getElementById("status").textContent === "ready"`)
	if got := p.str(`location.search`); got != "" {
		t.Errorf("the token stays in the address bar: %q", got)
	}

	// Edit the function, run the script: the query keeps running on the stream.
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	edit := func(name, text string) {
		t.Helper()
		p.must(fmt.Sprintf(`(() => { const b = [...document.querySelectorAll("#files button")].find((b) => b.dataset.name === %s);
			b.click(); const ta = document.getElementById("code"); ta.value = %s; ta.dispatchEvent(new Event("input")); })()`, q(name), q(text)))
	}
	ready := `!ptfsh.busy && document.getElementById("status").textContent === "ready"`
	text := p.str(`ptfsh.files.find((f) => f.name === "follow_up.js").text`)
	edit("follow_up.js", strings.Replace(text, `"thanks for your visit"`, `"thank you, come again"`, 1))
	if !strings.Contains(p.str(`document.getElementById("highlight").innerHTML`), `<span class="tok-kw">export</span>`) {
		t.Error("the editor does not highlight the function's keywords")
	}
	p.must(`document.getElementById("format").value = "rows"`)
	p.must(`document.getElementById("run").click()`)
	p.waitFor("the script to run", ready+` && document.getElementById("output").textContent.includes("the query keeps running on door")`)
	p.waitFor("the stream in the stepping controls", `document.getElementById("stream").value === "door"`)

	// Step: insert a row, advance the watermark: the rows, the state and the timeline change.
	updates := func() int {
		var n int
		p.eval(`+(document.getElementById("timeline").dataset.updates || 0)`, &n)
		return n
	}
	before := updates()
	p.must(`document.getElementById("row-values").value = "'Carol', TIMESTAMP '2025-03-27 12:00:20'"`)
	p.must(`document.getElementById("insert").click()`)
	p.waitFor("the insert step", ready+` && document.getElementById("state").textContent.includes("(Carol)")`)
	p.must(`document.getElementById("wm-to").value = "2025-03-27 12:01:05"`)
	p.must(`document.getElementById("advance").click()`)
	p.waitFor("the advance step", ready+` && document.getElementById("output").textContent.includes("+I[Bob, thank you, come again, 2025-03-27T12:01:00Z]")`)
	p.screenshot("playground-stepped")
	// Processing time: the stream's clock moves BY an interval, and the step emits nothing.
	p.must(`document.getElementById("pt-step").value = "30 s"`)
	p.must(`document.getElementById("advance-pt").click()`)
	p.waitFor("the processing-time step", ready+` && /ADVANCE PROCESSING TIME door BY INTERVAL '30' SECOND;\s*note: no rows at this step/.test(document.getElementById("output").textContent)`)
	if updates() <= before {
		t.Errorf("the timeline did not change with the steps (%d updates, %d before)", updates(), before)
	}
	if !strings.Contains(p.str(`document.getElementById("timers").textContent`), "(Alice)") {
		t.Errorf("the timers pane lacks Alice's timer:\n%s", p.str(`document.getElementById("timers").textContent`))
	}

	// Predict: the step asks first, and the guess is scored.
	p.must(`document.getElementById("predict").click()`)
	p.waitFor("predict mode", ready)
	p.must(`document.getElementById("wm-to").value = "2025-03-27 12:01:25"`)
	p.must(`document.getElementById("advance").click()`)
	p.waitFor("the guess box", `document.getElementById("guess-box").style.display === "block"`)
	p.must(`document.getElementById("guess").value = "+I[Alice, thank you, come again, 2025-03-27T12:01:10Z]\n+I[Carol, thank you, come again, 2025-03-27T12:01:20Z]"`)
	p.must(`document.getElementById("submit-guess").click()`)
	p.waitFor("the scored guess", ready+` && document.getElementById("output").textContent.includes("guess: right: all 2 rows")`)
	p.must(`document.getElementById("predict").click()`)
	p.waitFor("predict mode off", ready)

	// The arrival view of the lesson's stream, then of 20,000 flights: points, the curve, late marks.
	p.must(`document.getElementById("view").value = "arrival"; document.getElementById("view").dispatchEvent(new Event("change"))`)
	p.waitFor("the view set", ready)
	p.must(`document.getElementById("run").click()`)
	p.waitFor("the arrival view", ready+` && document.querySelector("#timeline svg.arrival-view") !== null`)
	p.must(`(() => { ptfsh.files.push({ name: "flights.sql", text: "" }); })()`)
	p.must(`document.querySelector("#files") && (() => { const f = ptfsh.files.find((f) => f.name === "flights.sql"); return f; })()`)
	p.must(fmt.Sprintf(`(() => { ptfsh.files.find((f) => f.name === "flights.sql").text = %s; ptfsh.script = "flights.sql"; })()`, q(`CREATE TABLE flights (`+"`date`"+` TIMESTAMP(3), delay INT, distance INT, origin STRING, destination STRING,
  WATERMARK FOR `+"`date`"+` AS `+"`date`"+` - INTERVAL '5' MINUTE
) WITH ('connector' = 'filesystem', 'path' = '../data/flights-20k.json', 'format' = 'json', 'timestamp-format.pattern' = 'yyyy/MM/dd HH:mm');
CREATE FUNCTION Pass LANGUAGE JAVASCRIPT AS $$
export default { output: "INT", args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  eval(ctx, s, { input }) { if (input.delay > 300) ctx.collect(input.delay); } };
$$;
EXPLAIN TIMELINE SELECT * FROM Pass(input => TABLE flights PARTITION BY origin, on_time => DESCRIPTOR(`+"`date`"+`));
`)))
	p.must(`document.getElementById("run").click()`)
	p.waitFor("the flights' picture", ready+` && document.getElementById("output").textContent.includes("rows out of the query")`)
	var shape struct {
		Bins, Points, Late, Curves, Timers int
		Axes                               []string
	}
	pictureShape := `(() => { const s = document.querySelector("#timeline svg.arrival-view g.arrival"); return { Bins: s.querySelectorAll("rect.bin-in").length,
		Points: s.querySelectorAll("circle.pt-in").length, Late: s.querySelectorAll("circle.pt-late, rect.bin-late").length,
		Curves: s.querySelectorAll("path.wm-curve").length, Timers: s.querySelectorAll(".timers > *").length,
		Axes: [...s.querySelectorAll("text.axis-label")].map((t) => t.textContent) }; })()`
	if err := p.eval(pictureShape, &shape); err != nil {
		t.Fatal(err)
	}
	if shape.Bins < 50 || shape.Curves != 1 || strings.Join(shape.Axes, ",") != "arrival time,event time" {
		t.Errorf("the 20,000 flights' arrival view: %+v", shape)
	}
	// The taxi feed comes out of order: its late rows are marked below the curve.
	p.must(fmt.Sprintf(`(() => { ptfsh.files.find((f) => f.name === "flights.sql").text = %s; })()`, q(`CREATE TABLE rides (ride_id BIGINT, event STRING, ts TIMESTAMP(3), start_lon DOUBLE, start_lat DOUBLE,
  end_lon DOUBLE, end_lat DOUBLE, passengers INT, taxi_id BIGINT, driver_id BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = '../labs/data/rides.csv', 'format' = 'csv');
CREATE FUNCTION Long LANGUAGE JAVASCRIPT AS $$
export default { output: "BIGINT", args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  eval(ctx, s, { input }) { if (input.event === "START") ctx.timeContext().registerOnTime("long", ctx.timeContext().time() + 7200000); else ctx.clearAllTimers(); },
  onTimer(ctx) { ctx.collect(1); } };
$$;
EXPLAIN TIMELINE SELECT * FROM Long(input => TABLE rides PARTITION BY ride_id, on_time => DESCRIPTOR(ts));
`)))
	p.must(`document.getElementById("run").click()`)
	p.waitFor("the rides' picture", ready+` && document.getElementById("output").textContent.includes("rows out of the query")`)
	shape = struct {
		Bins, Points, Late, Curves, Timers int
		Axes                               []string
	}{}
	if err := p.eval(pictureShape, &shape); err != nil {
		t.Fatal(err)
	}
	p.screenshot("playground-rides-arrival")
	if shape.Points < 1000 || shape.Late < 10 || shape.Curves != 1 || shape.Timers < 10 {
		t.Errorf("the taxi rides' arrival view: %+v", shape)
	}

	// Windows without a PTF, on both clocks, over a stream whose clock is
	// stepped: each window aggregation draws a section, the one on
	// processing time follows the clock (its curve and steps), the one on
	// event time the watermark, with its dropped row and its firings.
	windows := `SELECT 'processing' AS clock, window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE taps, DESCRIPTOR(pt), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end
UNION ALL SELECT 'event' AS clock, window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE taps, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end;
`
	p.must(fmt.Sprintf(`(() => { ptfsh.files.find((f) => f.name === "flights.sql").text = %s; })()`, q(`CREATE STREAM taps (card STRING, ts TIMESTAMP(3), pt AS PROCTIME(), WATERMARK FOR ts AS ts - INTERVAL '30' SECOND);
ADVANCE PROCESSING TIME taps TO TIMESTAMP '2025-03-27 12:00:00';
INSERT INTO taps VALUES ('ann', TIMESTAMP '2025-03-27 12:00:10'), ('bob', TIMESTAMP '2025-03-27 12:00:20');
ADVANCE PROCESSING TIME taps BY INTERVAL '30' SECOND;
INSERT INTO taps VALUES ('cat', TIMESTAMP '2025-03-27 12:00:25');
ADVANCE PROCESSING TIME taps BY INTERVAL '30' SECOND;
INSERT INTO taps VALUES ('eve', TIMESTAMP '2025-03-27 12:01:40'), ('dan', TIMESTAMP '2025-03-27 12:00:50');
ADVANCE PROCESSING TIME taps BY INTERVAL '1' MINUTE;
EXPLAIN TIMELINE `+windows)))
	p.must(`document.getElementById("run").click()`)
	p.waitFor("the windows' arrival picture", ready+` && document.getElementById("output").textContent.includes("rows out of the query") && document.querySelector("#timeline svg.arrival-view g.arrival[data-op='window clock']") !== null`)
	var arr struct{ ClockCurves, ClockSteps, ClockFired, WmCurves, Dropped, Fired int }
	if err := p.eval(`(() => { const c = document.querySelector("#timeline g.arrival[data-op='window clock']"), e = document.querySelector("#timeline g.arrival[data-op='window']");
		return { ClockCurves: c.querySelectorAll("path.clock-curve").length, ClockSteps: c.querySelectorAll(".clock-step").length, ClockFired: c.querySelectorAll(".timers > *").length,
			WmCurves: e.querySelectorAll("path.wm-curve:not(.clock-curve)").length, Dropped: e.querySelectorAll(".pt-dropped").length, Fired: e.querySelectorAll(".timers > *").length }; })()`, &arr); err != nil {
		t.Fatal(err)
	}
	p.screenshot("playground-windows-arrival")
	if arr.ClockCurves != 1 || arr.ClockSteps != 4 || arr.ClockFired < 1 || arr.WmCurves != 1 || arr.Dropped != 1 || arr.Fired < 1 {
		t.Errorf("the windows' arrival view: %+v", arr)
	}
	p.must(`document.getElementById("view").value = "event"; document.getElementById("view").dispatchEvent(new Event("change"))`)
	p.waitFor("the view set", ready)
	p.must(fmt.Sprintf(`(() => { ptfsh.files.find((f) => f.name === "flights.sql").text = %s; })()`, q("EXPLAIN TIMELINE "+windows)))
	p.must(`document.getElementById("output").textContent = ""; document.getElementById("run").click()`)
	p.waitFor("the windows' event picture", ready+` && document.getElementById("output").textContent.includes("rows out of the query") && document.querySelector("#timeline svg g.call[data-op='window clock']") !== null`)
	var ev struct {
		Lanes                                   []string
		ClockSteps, Fired, Out, Dropped, WmStep int
	}
	if err := p.eval(`(() => { const c = document.querySelector("#timeline g.call[data-op='window clock']"), e = document.querySelector("#timeline g.call[data-op='window']");
		return { Lanes: [c, e].map((g) => g.querySelector("g.watermark text").textContent), ClockSteps: c.querySelectorAll(".clock-step").length,
			Fired: c.querySelectorAll(".timer-fired").length + e.querySelectorAll(".timer-fired").length, Out: c.querySelectorAll(".out").length + e.querySelectorAll(".out").length,
			Dropped: e.querySelectorAll(".dropped").length, WmStep: e.querySelectorAll(".wm-step:not(.clock-step)").length }; })()`, &ev); err != nil {
		t.Fatal(err)
	}
	p.screenshot("playground-windows-event")
	if strings.Join(ev.Lanes, ",") != "proc time,watermark" || ev.ClockSteps != 4 || ev.Fired != 4 || ev.Out != 4 || ev.Dropped != 1 || ev.WmStep < 3 {
		t.Errorf("the windows' event view: %+v", ev)
	}

	// A lesson: open it, run its script, run its exercise: the stub fails
	// with a hint and no expected line; a solution passes.
	p.must(`document.getElementById("menu").value = "lessons/1-event-time"; document.getElementById("menu").dispatchEvent(new Event("change"))`)
	p.waitFor("the lesson's files", `ptfsh.files.some((f) => f.name === "lateness.js") && document.querySelectorAll(".exercise").length === 1`)
	p.must(`document.getElementById("run").click()`)
	p.waitFor("the lesson's script", ready+` && document.getElementById("output").textContent.includes("late")`)
	if p.str(`document.querySelector("#timeline svg") ? "svg" : ""`) != "svg" {
		t.Error("the lesson draws no timeline")
	}
	p.must(`document.querySelector(".exercise .test").click()`)
	p.waitFor("the exercise's result", `document.querySelector(".exercise .result").textContent.startsWith("running") === false && document.querySelector(".exercise .result").textContent !== ""`)
	res := p.str(`document.querySelector(".exercise .result").textContent`)
	if !strings.Contains(res, "hint 1 of 3") || strings.Contains(res, "late, 60000") {
		t.Errorf("the stub's result shows no hint, or an expected line:\n%s", res)
	}
	p.must(`document.querySelector(".exercise .hint").click()`)
	p.waitFor("the second hint", `document.querySelector(".exercise .result").textContent.includes("hint 2 of 3")`)
	solution, err := os.ReadFile(filepath.Join("..", "..", "examples", "lessons", "1-event-time", "solutions", "lateness.js"))
	if err != nil {
		t.Fatal(err)
	}
	edit("lateness.js", string(solution))
	p.must(`document.querySelector(".exercise .test").click()`)
	p.waitFor("the exercise to pass", `document.querySelector(".exercise .result").className.includes("passed")`)
	p.screenshot("playground-exercise")

	// Offline: every resource the page loaded came from the server itself.
	var foreign []string
	if err := p.eval(`performance.getEntriesByType("resource").map((e) => e.name).filter((n) => !n.startsWith(location.origin))`, &foreign); err != nil {
		t.Fatal(err)
	}
	if len(foreign) > 0 {
		t.Errorf("the page loaded from elsewhere: %v", foreign)
	}
}

// startPlayground serves the playground with the examples on a free
// loopback port and returns the page's address with its token.
func startPlayground(t *testing.T) string {
	t.Helper()
	examples, err := filepath.Abs(filepath.Join("..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := playground.New(playgroundOptions(examples))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := playground.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv.Handler()}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return "http://" + ln.Addr().String() + "/?token=" + srv.Token()
}
