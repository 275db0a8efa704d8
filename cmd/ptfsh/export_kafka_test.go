package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/connector/kafka/kafkatest"
)

// TestRunExport_kafka exports a pipeline over Kafka topics (against a
// fake cluster): a SELECT over a bounded topic is a test case; the INSERT
// into a topic is the job, in job.sql after the tables it needs, and in
// no test; a SELECT over a topic Flink reads without end is no test, with
// a note; the pom carries flink-connector-kafka (in the job's jar) and the
// formats.
func TestRunExport_kafka(t *testing.T) {
	servers := kafkatest.Start(t, 3, "clicks", "alerts").Servers()
	dir := t.TempDir()
	fn, err := filepath.Abs("../../examples/kafka/burst_alert.js")
	if err != nil {
		t.Fatal(err)
	}
	script := `CREATE FUNCTION burst_alert AS '` + fn + `';
CREATE TABLE clicks (user_id STRING, url STRING, ts TIMESTAMP_LTZ(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'clicks', 'properties.bootstrap.servers' = '` + servers + `',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'key.format' = 'raw', 'key.fields' = 'user_id', 'value.format' = 'json', 'sink.partitioner' = 'fixed');
INSERT INTO clicks VALUES
  ('Bob', '/a', TIMESTAMP_LTZ '2025-03-27 12:00:00'), ('Bob', '/b', TIMESTAMP_LTZ '2025-03-27 12:00:03'),
  ('Bob', '/c', TIMESTAMP_LTZ '2025-03-27 12:00:05'), ('Dave', '/a', TIMESTAMP_LTZ '2025-03-27 12:01:00');
SELECT * FROM burst_alert(input => TABLE clicks PARTITION BY user_id, on_time => DESCRIPTOR(ts));
CREATE TABLE alerts (user_id STRING, clicks BIGINT, rowtime TIMESTAMP_LTZ(3)) WITH (
  'connector' = 'kafka', 'topic' = 'alerts', 'properties.bootstrap.servers' = '` + servers + `',
  'key.format' = 'raw', 'key.fields' = 'user_id', 'value.format' = 'json', 'scan.startup.mode' = 'earliest-offset',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'click-alerts');
INSERT INTO alerts
SELECT * FROM burst_alert(input => TABLE clicks PARTITION BY user_id, on_time => DESCRIPTOR(ts));
SELECT * FROM alerts;
`
	scriptFile := filepath.Join(dir, "alerts.sql")
	if err := os.WriteFile(scriptFile, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(dir, "p")
	var out, errb bytes.Buffer
	if code := run([]string{"export", "flink", fn, "-o", proj, "--script", scriptFile}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "(1 test cases)") {
		t.Errorf("stdout %q, want one test case", out.String())
	}
	if want := "alerts.sql:17: no test, it reads alerts, a topic that Flink reads without end ('kafka' without 'scan.bounded.mode')"; !strings.Contains(errb.String(), want) {
		t.Errorf("notes lack %q:\n%s", want, errb.String())
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(proj, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	job := read("job.sql")
	create, insert := strings.Index(job, "CREATE TABLE alerts"), strings.Index(job, "INSERT INTO alerts\nSELECT * FROM burst_alert(")
	if create < 0 || insert < create || !strings.Contains(job, "CREATE TABLE clicks") {
		t.Errorf("job.sql lacks the tables or the INSERT after them:\n%s", job)
	}
	if strings.Contains(job, "INSERT INTO clicks") || strings.Contains(job, "SELECT * FROM alerts") {
		t.Errorf("job.sql holds the script's test data or its look at the sink:\n%s", job)
	}
	// Flink's sink would ask for transactions of an hour, which a broker
	// refuses by default: the exactly-once table asks for ptfsh's 15
	// minutes; the clicks table, written at least once, is as it was.
	if want := "'sink.transactional-id-prefix' = 'click-alerts', 'properties.transaction.timeout.ms' = '900000')"; !strings.Contains(job, want) {
		t.Errorf("job.sql's alerts table lacks %s:\n%s", want, job)
	}
	if strings.Count(job, "transaction.timeout.ms") != 1 {
		t.Errorf("job.sql gives a transaction timeout to a table that writes no transactions:\n%s", job)
	}
	if index := read("src/test/resources/ptfsh/cases/index.txt"); index != "case01\n" {
		t.Errorf("index.txt = %q, want the one SELECT", index)
	}
	pom := read("pom.xml")
	for _, want := range []string{
		"<flink-connector-kafka.version>5.0.0-2.2</flink-connector-kafka.version>",
		"<artifactId>flink-connector-kafka</artifactId>\n      <version>${flink-connector-kafka.version}</version>\n    </dependency>",
		"<artifactId>flink-json</artifactId>\n      <version>${flink.version}</version>\n      <scope>provided</scope>",
	} {
		if !strings.Contains(pom, want) {
			t.Errorf("pom.xml lacks %q", want)
		}
	}
	// The job's jar carries the connector; the client's class path must
	// not hold a second copy.
	if client := read("sql-client/pom.xml"); strings.Contains(client, "flink-connector-kafka") {
		t.Errorf("sql-client/pom.xml holds the Kafka connector, which the job's jar carries:\n%s", client)
	}
}
