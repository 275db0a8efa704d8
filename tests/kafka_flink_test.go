package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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
