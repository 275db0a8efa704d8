package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/connector/kafka/kafkatest"
)

// TestKafkaSecurity writes and reads a topic of a fake cluster (kfake)
// that asks for SASL (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512), TLS, or both,
// through the Kafka client properties Flink passes on
// ('properties.security.protocol', 'properties.sasl.mechanism',
// 'properties.sasl.jaas.config', 'properties.ssl.truststore.*'); a wrong
// password, an untrusted certificate and a login module that does not fit
// the mechanism fail with a message that says so.
func TestKafkaSecurity(t *testing.T) {
	certPEM, keyPEM := kafkatest.SelfSigned(t)
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, certPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	plain := `'properties.sasl.jaas.config' = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="s3cret";'`
	scram := `'properties.sasl.jaas.config' = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="s3cret";'`
	trust := "'properties.ssl.truststore.type' = 'PEM', 'properties.ssl.truststore.location' = '" + ca + "'"
	for _, c := range []struct {
		name  string
		sec   kafkatest.Security
		props string
		want  string // a line of the output
	}{
		{"plain", kafkatest.Security{Mechanism: "PLAIN", User: "alice", Password: "s3cret"},
			"'properties.security.protocol' = 'SASL_PLAINTEXT', 'properties.sasl.mechanism' = 'PLAIN', " + plain, "+I[Bob, 12]"},
		{"scram256", kafkatest.Security{Mechanism: "SCRAM-SHA-256", User: "alice", Password: "s3cret"},
			"'properties.security.protocol' = 'SASL_PLAINTEXT', 'properties.sasl.mechanism' = 'SCRAM-SHA-256', " + scram, "+I[Bob, 12]"},
		{"scram512", kafkatest.Security{Mechanism: "SCRAM-SHA-512", User: "alice", Password: "s3cret"},
			"'properties.security.protocol' = 'SASL_PLAINTEXT', 'properties.sasl.mechanism' = 'SCRAM-SHA-512', " + scram, "+I[Bob, 12]"},
		{"ssl", kafkatest.Security{CertPEM: certPEM, KeyPEM: keyPEM},
			"'properties.security.protocol' = 'SSL', " + trust, "+I[Bob, 12]"},
		{"sasl_ssl", kafkatest.Security{Mechanism: "SCRAM-SHA-512", User: "alice", Password: "s3cret", CertPEM: certPEM, KeyPEM: keyPEM},
			"'properties.security.protocol' = 'SASL_SSL', 'properties.sasl.mechanism' = 'SCRAM-SHA-512', " + scram + ", " + trust, "+I[Bob, 12]"},
		{"wrong_password", kafkatest.Security{Mechanism: "PLAIN", User: "alice", Password: "other"},
			"'properties.security.protocol' = 'SASL_PLAINTEXT', 'properties.sasl.mechanism' = 'PLAIN', " + plain, "closed the connection during SASL PLAIN authentication as 'alice'"},
		{"untrusted", kafkatest.Security{CertPEM: certPEM, KeyPEM: keyPEM},
			"'properties.security.protocol' = 'SSL'", "certificate signed by unknown authority"},
		{"module_mismatch", kafkatest.Security{Mechanism: "PLAIN", User: "alice", Password: "s3cret"},
			"'properties.security.protocol' = 'SASL_PLAINTEXT', 'properties.sasl.mechanism' = 'SCRAM-SHA-256', " + plain,
			"names the login module org.apache.kafka.common.security.plain.PlainLoginModule, but SASL SCRAM-SHA-256 takes ScramLoginModule"},
	} {
		t.Run(c.name, func(t *testing.T) {
			servers := kafkatest.StartSecure(t, c.sec, 1, "people").Servers()
			q := `SET 'ptfsh.format' = 'rows';
CREATE TABLE people (name STRING, age INT) WITH ('connector' = 'kafka', 'topic' = 'people',
  'properties.bootstrap.servers' = '` + servers + `', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset', 'format' = 'json', ` + c.props + `);
INSERT INTO people VALUES ('Bob', 12);
SELECT * FROM people;
`
			got := RunScript(t, dir, q)
			if !strings.Contains(got, c.want) {
				t.Errorf("output lacks %q:\n%s", c.want, got)
			}
		})
	}
}
