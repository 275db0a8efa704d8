package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/connector/kafka/kafkatest"
)

// TestRunExport_kafkaFlink exports the Kafka example
// (examples/kafka/click_alerts.sql: clicks from a topic of three
// partitions, read to the end they had when the job started, burst_alert
// with timers, alerts into a topic exactly once) against a real broker,
// runs the exported job.sql on a Flink 2.3 mini cluster (the statements in
// turn through a TableEnvironment, as tests/flinkkafka's RunKafka runs
// them, on the class path of the project's sql-client/pom.xml and its jar)
// over the clicks ptfsh wrote, its alerts going to a topic of their own,
// and checks that the two alert topics, read read_committed, hold the same
// records: keys and values byte for byte, as multisets. Opt-in:
// PTFSH_KAFKA=1, with Maven and Java.
//
// Not Flink's SQL client: in its embedded mode each INSERT runs on a mini
// cluster of its own, which shuts down when the job ends (a bounded read
// ends), and with 'table.dml-sync' the client then asks the job's status
// and fails with "MiniCluster is not yet running or has already been shut
// down" (what Flink's PerJobMiniClusterFactoryTest asserts of a finished
// job's client); without it the client ends the job when it leaves.
func TestRunExport_kafkaFlink(t *testing.T) {
	if !kafkatest.Real {
		t.Skip("runs a real Kafka broker and a Flink mini cluster: set PTFSH_KAFKA=1")
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		t.Skip("mvn is not on PATH")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("java is not on PATH")
	}
	javac, err := exec.LookPath("javac")
	if err != nil {
		t.Skip("javac is not on PATH")
	}
	servers := kafkatest.StartBroker(t)
	kafkatest.CreateTopics(t, servers, 3, "clicks")
	kafkatest.CreateTopics(t, servers, 1, "alerts", "alerts-flink")
	dir := t.TempDir()
	src, err := os.ReadFile("../../examples/kafka/click_alerts.sql")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "click_alerts.sql")
	writeFile(t, script, strings.ReplaceAll(string(src), "localhost:9092", servers))
	fn, err := os.ReadFile("../../examples/kafka/burst_alert.js")
	if err != nil {
		t.Fatal(err)
	}
	js := filepath.Join(dir, "burst_alert.js")
	writeFile(t, js, string(fn))
	// The export runs the script: ptfsh writes the clicks and its alerts.
	proj := filepath.Join(dir, "p")
	var out, errb bytes.Buffer
	if code := run([]string{"export", "flink", js, "--script", script, "-o", proj}, nil, &out, &errb); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errb.String())
	}
	job, err := os.ReadFile(filepath.Join(proj, "job.sql"))
	if err != nil {
		t.Fatal(err)
	}
	jar := jobJarRE.FindStringSubmatch(string(job))
	if jar == nil {
		t.Fatalf("job.sql names no jar:\n%s", job)
	}
	// Flink's alerts go to a topic of their own, in transactions of their own.
	flinkJob := strings.Replace(string(job), "'topic' = 'alerts'", "'topic' = 'alerts-flink'", 1)
	flinkJob = strings.Replace(flinkJob, "'sink.transactional-id-prefix' = 'click-alerts'", "'sink.transactional-id-prefix' = 'click-alerts-flink'", 1)
	if flinkJob == string(job) || !strings.Contains(flinkJob, "INSERT INTO alerts") {
		t.Fatalf("job.sql has no alerts table and INSERT to point at a topic of Flink's:\n%s", job)
	}
	writeFile(t, filepath.Join(proj, "job.sql"), flinkJob)
	for _, args := range [][]string{
		{mvn, "-B", "-q", "package", "-DskipTests"},
		{mvn, "-B", "-q", "-f", "sql-client/pom.xml", "dependency:build-classpath", "-Dmdep.outputFile=classpath.txt"},
	} {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = proj
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args[1:], " "), err, tail(string(b), 4000))
		}
	}
	cp, err := os.ReadFile(filepath.Join(proj, "sql-client/classpath.txt"))
	if err != nil {
		t.Fatal(err)
	}
	classes := filepath.Join(dir, "classes")
	runner, err := filepath.Abs("../../tests/flinkkafka/src/main/java/ptfsh/RunKafka.java")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(javac, "-cp", strings.TrimSpace(string(cp)), "-d", classes, runner).CombinedOutput(); err != nil {
		t.Fatalf("javac RunKafka.java: %v\n%s", err, b)
	}
	cmd := exec.Command(java, "-cp", classes+":"+filepath.Join(proj, jar[1])+":"+strings.TrimSpace(string(cp)), "ptfsh.RunKafka", "job.sql")
	cmd.Dir = proj
	flinkOut, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(flinkOut), "ERROR: ") {
		t.Fatalf("Flink: %v\n%s", err, tail(string(flinkOut), 4000))
	}

	// Both topics' records, read committed, as ptfsh reads raw records.
	read := func(topic string) []string {
		q := `CREATE TABLE a (k STRING, v STRING) WITH ('connector' = 'kafka', 'topic' = '` + topic + `',
  'properties.bootstrap.servers' = '` + servers + `', 'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'key.format' = 'raw', 'key.fields' = 'k', 'value.format' = 'raw', 'value.fields-include' = 'EXCEPT_KEY');
SELECT * FROM a;`
		var o, e bytes.Buffer
		if code := run([]string{"--format", "rows", "-e", q}, nil, &o, &e); code != 0 {
			t.Fatalf("reading %s: %s", topic, e.String())
		}
		rows := strings.Split(strings.TrimSpace(o.String()), "\n")
		sort.Strings(rows)
		return rows
	}
	ptfsh, flink := read("alerts"), read("alerts-flink")
	if len(ptfsh) == 0 || ptfsh[0] == "" {
		t.Fatalf("ptfsh wrote no alerts; export's output:\n%s\n%s", out.String(), errb.String())
	}
	if strings.Join(flink, "\n") != strings.Join(ptfsh, "\n") {
		t.Errorf("Flink's alert records\n%s\nptfsh's\n%s\nFlink's output:\n%s", strings.Join(flink, "\n"), strings.Join(ptfsh, "\n"), tail(string(flinkOut), 4000))
	}
}
