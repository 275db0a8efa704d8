package tests

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/connector/kafka/kafkatest"
)

// TestKafkaScripts runs the archives of testdata_kafka as TestScripts runs
// those of testdata, each against a fake Kafka cluster of its own
// (kafkatest, in process), or with PTFSH_KAFKA=1 against a real Apache
// Kafka broker (kafkatest.StartBroker) whose topics each archive creates
// and deletes: the archive's "topics" section lists the topics
// to create, one "name partitions" a line, and ${KAFKA} in query.sql
// stands for the cluster's bootstrap servers, ${REGISTRY} for the address of
// a schema registry (kafkatest.StartRegistry) started for it. (They live outside testdata
// because ptfsh test runs that folder without a cluster.)
func TestKafkaScripts(t *testing.T) {
	files, err := filepath.Glob("testdata_kafka/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no Kafka script tests found")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) { runKafkaArchive(t, file) })
	}
}

func runKafkaArchive(t *testing.T, file string) {
	test, dir := extractArchive(t, file)
	servers := startKafka(t, test.Section)
	query := strings.ReplaceAll(test.Query, "${KAFKA}", servers)
	registry := ""
	if strings.Contains(query, "${REGISTRY}") {
		registry = kafkatest.StartRegistry(t).URL()
		query = strings.ReplaceAll(query, "${REGISTRY}", registry)
	}
	got := RunScript(t, dir, query)
	got = strings.ReplaceAll(got, servers, "${KAFKA}")
	if registry != "" {
		got = strings.ReplaceAll(got, registry, "${REGISTRY}")
	}
	checkArchive(t, file, test, got)
}

// startKafka starts a fake cluster with the topics of an archive's
// "topics" section and returns its bootstrap servers.
func startKafka(t *testing.T, section func(string) (string, bool)) string {
	t.Helper()
	text, _ := section("topics")
	byCount := map[int][]string{}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		n := 1
		if len(f) > 1 {
			var err error
			if n, err = strconv.Atoi(f[1]); err != nil {
				t.Fatalf("topics: bad line %q", line)
			}
		}
		byCount[n] = append(byCount[n], f[0])
	}
	if kafkatest.Real {
		servers := kafkatest.StartBroker(t)
		for n, topics := range byCount {
			kafkatest.CreateTopics(t, servers, int32(n), topics...)
		}
		return servers
	}
	if len(byCount) > 1 {
		t.Fatal("topics: a fake cluster's topics share one partition count")
	}
	for n, topics := range byCount {
		return kafkatest.Start(t, n, topics...).Servers()
	}
	return kafkatest.Start(t, 1).Servers()
}
