package tests

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/runtime/connector/kafka"
	"github.com/ptfsh/ptfsh/runtime/connector/kafka/kafkatest"
)

// TestKafkaLive_idlePartition reads a topic of three partitions without
// end while records keep coming to two of them; the third stays empty.
// An empty partition has no watermark and holds the table's back until
// 'table.exec.source.idle-timeout' makes it idle: without the timeout no
// window fires, with it the windows fire as the two busy partitions'
// least watermark passes them, each with all its rows. SIGTERM stops the
// statement with its final checkpoint, and a second run over the same
// state file goes on where it stopped: its first windows hold their rows
// of both runs.
func TestKafkaLive_idlePartition(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the test runs ptfsh against a topic for some seconds")
	}
	bin := ptfshBinary(t)
	var servers string
	if kafkatest.Real {
		servers = kafkatest.StartBroker(t)
		kafkatest.CreateTopics(t, servers, 3, "clicks")
	} else {
		servers = kafkatest.Start(t, 3, "clicks").Servers()
	}
	// Record i goes to partitions 0 and 1, one event-time second after
	// record i-1, every 50 ms: a 5-second window has ten rows.
	ctx := context.Background()
	cl, w := dialWriter(t, servers)
	defer cl.Close()
	base := time.Date(2025, 3, 27, 12, 0, 0, 0, time.UTC).UnixMilli()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer w.Close()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for i := int64(0); ; i++ {
			ts := base + i*1000
			for p := int32(0); p < 2; p++ {
				v := fmt.Sprintf(`{"user_id": "u%d", "ts": %d}`, p, ts)
				w.Write(ctx, kafka.Record{TP: kafka.TP{Topic: "clicks", Partition: p}, Timestamp: ts, Value: []byte(v)})
			}
			if err := w.Flush(ctx); err != nil {
				t.Error(err)
				return
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()

	dir := t.TempDir()
	script := func(state, idle string) []string {
		q := fmt.Sprintf(`%s
CREATE TABLE clicks (user_id STRING, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'kafka', 'topic' = 'clicks', 'properties.bootstrap.servers' = '%s',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
SELECT CAST(window_start AS STRING), COUNT(*) AS n FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
`, idle, servers)
		return []string{"--state", filepath.Join(dir, state), "--format", "rows", "-e", q}
	}
	window := func(k int) string {
		return fmt.Sprintf("+I[%s, 10]", time.UnixMilli(base+int64(k)*5000).UTC().Format("2006-01-02 15:04:05.000"))
	}

	// Without the timeout the empty partition holds every window back.
	lines, errs := runLive(t, bin, script("none.db", ""), 0, 2*time.Second)
	if len(lines) > 0 {
		t.Fatalf("without an idle timeout windows fired although a partition has no watermark: %q; stderr:\n%s", lines, errs)
	}

	idle := "SET 'table.exec.source.idle-timeout' = '1 s';"
	lines, errs = runLive(t, bin, script("idle.db", idle), 3, 30*time.Second)
	if len(lines) < 3 {
		t.Fatalf("with an idle timeout of 1 s: %d windows within 30 s, want 3: %q; stderr:\n%s", len(lines), lines, errs)
	}
	for k, l := range lines {
		if l != window(k) {
			t.Fatalf("window %d is %q, want %q (all: %q)", k, l, window(k), lines)
		}
	}
	if !strings.Contains(errs, "note: stopping") {
		t.Errorf("no note of the stop on stderr:\n%s", errs)
	}
	next := len(lines)
	lines, errs = runLive(t, bin, script("idle.db", idle), 2, 30*time.Second)
	if len(lines) < 2 {
		t.Fatalf("the second run: %d windows within 30 s, want 2: %q; stderr:\n%s", len(lines), lines, errs)
	}
	for k, l := range lines {
		if l != window(next+k) {
			t.Fatalf("the second run's window %d is %q, want %q: it did not go on where the first stopped (all: %q; stderr:\n%s)", k, l, window(next+k), lines, errs)
		}
	}
	if !strings.Contains(errs, "goes on at the offsets of the last checkpoint") {
		t.Errorf("the second run does not say where it went on:\n%s", errs)
	}
}

// runLive runs ptfsh with args until it printed want lines (or for wait
// when want is 0, or at most wait), stops it with SIGTERM and returns the
// lines it printed, also those after the signal, and its stderr. It fails unless the stop ends it with exit
// status 0.
func runLive(t *testing.T, bin string, args []string, want int, wait time.Duration) ([]string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan string, 100)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	var lines []string
	deadline := time.After(wait)
loop:
	for want == 0 || len(lines) < want {
		select {
		case l, ok := <-ch:
			if !ok {
				break loop
			}
			lines = append(lines, l)
		case <-deadline:
			break loop
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	for l := range ch {
		lines = append(lines, l) // what came before the stop
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after SIGTERM: %v; stderr:\n%s", err, stderr.String())
	}
	return lines, stderr.String()
}
