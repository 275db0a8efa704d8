package tests

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/runtime/connector/kafka"
	"github.com/ptfsh/ptfsh/runtime/connector/kafka/kafkatest"
)

// kafkaFlinkArchives are the archives of testdata_kafka whose "flink.sql"
// TestKafkaFlink runs on Flink and on ptfsh.
var kafkaFlinkArchives = []string{"testdata_kafka/upsert.txtar", "testdata_kafka/partition_watermarks.txtar", "testdata_kafka/partition_watermarks_computed.txtar"}

// TestKafkaFlink runs the "flink.sql" section of each of kafkaFlinkArchives
// on a Flink 2.3 mini cluster with flink-connector-kafka (tests/flinkkafka)
// and on ptfsh, each against topics of its own on the real broker, and
// checks that both give the rows of the "flink.out" section (Flink's
// Row.toString, in order). Opt-in: PTFSH_KAFKA=1 and Maven.
func TestKafkaFlink(t *testing.T) {
	servers, dir, cp := kafkaFlinkSetup(t)
	for _, file := range kafkaFlinkArchives {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			test, tmp := extractArchive(t, file)
			query, ok := test.Section("flink.sql")
			want, ok2 := test.Section("flink.out")
			if !ok || !ok2 {
				t.Fatalf("%s: no flink.sql or flink.out section", file)
			}
			topics, _ := test.Section("topics")
			query = strings.ReplaceAll(query, "${KAFKA}", servers)
			// Each run writes topics of its own.
			own := func(suffix string) string {
				for _, line := range strings.Split(topics, "\n") {
					if f := strings.Fields(line); len(f) == 2 {
						var n int32
						fmt.Sscan(f[1], &n)
						kafkatest.CreateTopics(t, servers, n, f[0]+suffix)
					}
				}
				return regexp.MustCompile(`'topic' = '([^']+)'`).ReplaceAllString(query, "'topic' = '${1}"+suffix+"'")
			}
			flinkScript := filepath.Join(tmp, "flink-run.sql")
			if err := os.WriteFile(flinkScript, []byte(own("-flink")), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command("java", "-cp", filepath.Join(dir, "target/classes")+":"+cp, "ptfsh.RunKafka", flinkScript).Output()
			if err != nil {
				t.Fatalf("Flink: %v\n%s", err, out)
			}
			if got := flinkLines(string(out), "ERROR: "); got != strings.TrimSpace(want) {
				t.Errorf("Flink gave\n%s\nflink.out has\n%s\n(all its output:\n%s)", got, want, out)
			}
			ptfsh := RunScript(t, tmp, "SET 'ptfsh.format' = 'rows';\n"+own("-ptfsh"))
			if got := flinkLines(ptfsh, "query.sql:"); got != strings.TrimSpace(want) {
				t.Errorf("ptfsh gave\n%s\nflink.out has\n%s\n(all its output:\n%s)", got, want, ptfsh)
			}
		})
	}
}

// TestKafkaFlink_idlePartition checks per-partition watermarks and
// idleness against Flink: records keep coming to partitions 0 and 1 of a
// three-partition topic, one event-time second apart (the record
// timestamp), and partition 2 stays empty. With
// 'table.exec.source.idle-timeout' = '1 s' the empty partition stops
// holding the watermark back; the tumbling windows then fire as the least
// watermark of the two busy partitions passes them. Flink 2.3 (a mini
// cluster reading the topic with flink-connector-kafka) and ptfsh must
// give the same first windows, each with all its rows. Opt-in:
// PTFSH_KAFKA=1 and Maven.
func TestKafkaFlink_idlePartition(t *testing.T) {
	servers, dir, cp := kafkaFlinkSetup(t)
	kafkatest.CreateTopics(t, servers, 3, "idle-clicks")
	cl, w := dialWriter(t, servers)
	defer cl.Close()
	ctx := context.Background()
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
				v := fmt.Sprintf(`{"user_id": "u%d"}`, p)
				w.Write(ctx, kafka.Record{TP: kafka.TP{Topic: "idle-clicks", Partition: p}, Timestamp: ts, Value: []byte(v)})
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

	query := fmt.Sprintf(`SET 'table.exec.source.idle-timeout' = '1 s';
CREATE TABLE clicks (user_id STRING, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', WATERMARK FOR ts AS ts) WITH (
  'connector' = 'kafka', 'topic' = 'idle-clicks', 'properties.bootstrap.servers' = '%s',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
SELECT CAST(window_start AS STRING) AS w, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
`, servers)
	const windows = 4
	var want []string
	for k := range windows {
		want = append(want, fmt.Sprintf("+I[%s, 10]", time.UnixMilli(base+int64(k)*5000).UTC().Format("2006-01-02 15:04:05.000")))
	}
	tmp := t.TempDir()
	script := filepath.Join(tmp, "idle.sql")
	if err := os.WriteFile(script, []byte(query), 0o644); err != nil {
		t.Fatal(err)
	}
	flink := exec.Command("java", "-cp", filepath.Join(dir, "target/classes")+":"+cp, "ptfsh.RunKafka", script, fmt.Sprint(windows))
	got := flinkFirstRows(t, flink, windows, 5*time.Minute)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Flink's first windows are\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	lines, errs := runLive(t, ptfshBinary(t), []string{"--format", "rows", "-e", query}, windows, time.Minute)
	if len(lines) > windows {
		lines = lines[:windows]
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("ptfsh's first windows are\n%s\nFlink's (and want)\n%s\nstderr:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"), errs)
	}
}

// kafkaFlinkSetup skips a test without PTFSH_KAFKA=1, Maven or Java, and
// returns the real broker's servers and tests/flinkkafka's folder and
// class path.
func kafkaFlinkSetup(t *testing.T) (servers, dir, cp string) {
	t.Helper()
	if !kafkatest.Real {
		t.Skip("runs a real Kafka broker and a Flink mini cluster: set PTFSH_KAFKA=1")
	}
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("java is not on PATH")
	}
	dir, cp = mavenClasspath(t, "flinkkafka")
	return kafkatest.StartBroker(t), dir, cp
}

// flinkFirstRows runs cmd until it printed the lines of rows that Flink prints
// (+I[...] and the like) n times, or for at most wait, and returns them;
// it ends the process either way.
func flinkFirstRows(t *testing.T, cmd *exec.Cmd, n int, wait time.Duration) []string {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	ch := make(chan string)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	var lines []string
	deadline := time.After(wait)
	for len(lines) < n {
		select {
		case l, ok := <-ch:
			if !ok {
				return lines
			}
			if flinkLines(l, "ERROR: ") != "" {
				lines = append(lines, l)
			}
		case <-deadline:
			t.Fatalf("%s: %d rows within %s, want %d: %q", cmd.Path, len(lines), wait, n, lines)
		}
	}
	return lines
}
