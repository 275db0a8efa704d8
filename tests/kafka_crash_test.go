package tests

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/connector/kafka"
	"github.com/ptfsh/ptfsh/runtime/connector/kafka/kafkatest"
)

// burstJS counts a user's clicks and reports them ten seconds (event time)
// after the first: a PTF with timers between the source and the sink.
const burstJS = `export default {
  output: "ROW<n BIGINT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { s: { default: { n: 0 } } },
  eval(ctx, { s }, { input }) {
    if (s.n === 0) ctx.timeContext().registerOnTime(input.ts.getTime() + 10000);
    s.n++;
  },
  onTimer(ctx, { s }) { ctx.collect({ n: s.n }); s.n = 0; },
};
`

// TestKafkaCrash_exactlyOnce reads a topic of three partitions through a
// PTF with timers into a topic with 'sink.delivery-guarantee' =
// 'exactly-once', as a child process killed with SIGKILL at seeded random
// moments (twelve with PTFSH_LONG=1, three otherwise: crashKills) and
// started again each time with the same state file; read with
// read_committed, the sink topic must equal an uninterrupted run's,
// record for record. With PTFSH_KAFKA=1 it runs
// against a real broker.
func TestKafkaCrash_exactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("the Kafka crash test takes about a minute")
	}
	var servers string
	if kafkatest.Real {
		servers = kafkatest.StartBroker(t)
		kafkatest.CreateTopics(t, servers, 3, "clicks", "alerts_ref", "alerts")
	} else {
		servers = kafkatest.Start(t, 3, "clicks", "alerts_ref", "alerts").Servers()
	}
	testKafkaCrash(t, servers, crashKills(12))
}

// testKafkaCrash is the crash test against the brokers at servers, whose
// topics clicks (three partitions), alerts_ref and alerts exist.
func testKafkaCrash(t *testing.T, servers string, minKills int) {
	bin := ptfshBinary(t)
	ctx := context.Background()
	cl, w := dialWriter(t, servers)
	defer cl.Close()
	const rows = 300_000
	base := time.Date(2025, 3, 27, 12, 0, 0, 0, time.UTC).UnixMilli()
	for i := 0; i < rows; i++ {
		ts := base + int64(i)*50 + int64((i*7919)%3000) // out of order by up to 3 s
		v := fmt.Sprintf(`{"user_id": "u%03d", "ts": %d}`, (i*31)%97, ts)
		w.Write(ctx, kafka.Record{TP: kafka.TP{Topic: "clicks", Partition: int32(i % 3)}, Timestamp: ts, Value: []byte(v)})
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	w.Close()

	work := t.TempDir()
	job := func(name, sink string) []string {
		dir := filepath.Join(work, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "burst.js"), []byte(burstJS), 0o644); err != nil {
			t.Fatal(err)
		}
		src := fmt.Sprintf(`SET 'execution.checkpointing.interval-rows' = '1500';
CREATE FUNCTION burst AS 'burst.js';
CREATE TABLE clicks (user_id STRING, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts - INTERVAL '3' SECOND) WITH (
  'connector' = 'kafka', 'topic' = 'clicks', 'properties.bootstrap.servers' = '%[1]s',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE alerts (user_id STRING, n BIGINT, rowtime TIMESTAMP_LTZ(3)) WITH (
  'connector' = 'kafka', 'topic' = '%[2]s', 'properties.bootstrap.servers' = '%[1]s', 'format' = 'json',
  'sink.partitioner' = 'fixed',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'ptfsh-test-%[2]s');
INSERT INTO alerts SELECT * FROM burst(input => TABLE clicks PARTITION BY user_id, on_time => DESCRIPTOR(ts));
`, servers, sink)
		script := filepath.Join(dir, "job.sql")
		if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return []string{"--state", filepath.Join(dir, "state.db"), "-f", script}
	}
	start := time.Now()
	runKilled(t, bin, job("ref", "alerts_ref"), 0)
	whole := time.Since(start)
	want := readCommitted(t, cl, "alerts_ref")
	if len(want) < 1000 {
		t.Fatalf("the uninterrupted run wrote %d alerts", len(want))
	}

	args := job("crash", "alerts")
	rng := rand.New(rand.NewPCG(2026, 25))
	// Each run is killed a seeded random moment (up to 200 ms) after it has
	// written its first record to the sink topic: a moment that depends on
	// the run's progress, not on how loaded the machine is.
	kills, finished := 0, false
	for i := 0; i < 60 && kills < minKills; i++ {
		extra := time.Duration(rng.Int64N(int64(200 * time.Millisecond)))
		before := endOffset(t, cl, "alerts")
		if !runKilledAfter(t, bin, args, func() bool { return endOffset(t, cl, "alerts") > before }, extra) {
			finished = true // ran to its end before its kill: a run again would read the topic afresh
			break
		}
		kills++
	}
	if !finished {
		runKilled(t, bin, args, 0)
	}
	got := readCommitted(t, cl, "alerts")
	if kills < minKills {
		t.Errorf("only %d kills (an uninterrupted run takes %v)", kills, whole)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("after %d kills the sink topic differs from an uninterrupted run's (%d records, want %d):\n%s", kills, len(got), len(want), firstLines(diff, 20))
	}
	t.Logf("%d kills; an uninterrupted run took %v; %d alerts", kills, whole, len(want))
}

// dialWriter connects to the brokers at servers and returns the client
// and a writer to the partitions its records name.
func dialWriter(t *testing.T, servers string) (*kafka.Client, *kafka.Writer) {
	t.Helper()
	cl, err := kafka.Dial(context.Background(), kafka.Config{Servers: strings.Split(servers, ",")})
	if err != nil {
		t.Fatal(err)
	}
	w, err := cl.NewWriter(kafka.WriterConfig{Partitioner: kafka.PartitionFixed})
	if err != nil {
		cl.Close()
		t.Fatal(err)
	}
	return cl, w
}

// runKilledAfter runs ptfsh with args and kills it with SIGKILL extra
// after started() first reports true (polled every 10 ms), unless it ended
// before; it reports whether it was killed.
func runKilledAfter(t *testing.T, bin string, args []string, started func() bool, extra time.Duration) (killed bool) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var kill <-chan time.Time
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("run failed before the kill: %v\n%s", err, stderr.String())
			}
			return false
		case <-tick.C:
			if kill == nil && started() {
				kill = time.After(extra)
			}
		case <-kill:
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-done
			return true
		}
	}
}

// endOffset is the offset after the last record of a topic's partitions,
// transactions open or not.
func endOffset(t *testing.T, c *kafka.Client, topic string) int64 {
	t.Helper()
	ctx := context.Background()
	tps, err := c.Partitions(ctx, []string{topic})
	if err != nil {
		t.Fatal(err)
	}
	ends, err := c.Offsets(ctx, tps, kafka.Latest)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, o := range ends {
		n += o
	}
	return n
}

// readCommitted reads a topic to its end with isolation.level =
// read_committed and returns the values in order.
func readCommitted(t *testing.T, c0 *kafka.Client, topic string) []string {
	t.Helper()
	ctx := context.Background()
	c, err := kafka.Dial(ctx, kafka.Config{Servers: c0.Servers(), ReadCommitted: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tps, err := c.Partitions(ctx, []string{topic})
	if err != nil {
		t.Fatal(err)
	}
	starts, err := c.Offsets(ctx, tps, kafka.Earliest)
	if err != nil {
		t.Fatal(err)
	}
	ends, err := c.Offsets(ctx, tps, kafka.Latest)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.NewReader(tps, starts, ends)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []string
	for {
		rec, ok, err := r.Next(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		out = append(out, string(rec.Value))
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
