package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ptfsh/ptfsh/runtime/connector/kafka"
	"github.com/ptfsh/ptfsh/runtime/connector/kafka/kafkatest"
)

// Workload K (-kafka): the keyed count from a topic into a topic on a
// real Apache Kafka broker that the run starts (kafkatest.RunBroker:
// Maven Central's kafka_2.13 on the Java on the PATH, one KRaft node on
// loopback ports), beside the same pipeline from a CSV file into a CSV
// file.

// kafkaWorkloads are K (one worker) and K-p2 (two), each with its CSV
// pipeline as the reference.
func kafkaWorkloads() []workload {
	clicks := dataSet{kind: "clicks", format: "csv"}
	csv := func(name string, flags ...string) engine {
		return engine{name: name, kind: "ptfsh", flags: flags, script: "keyed_count_insert.sql", sinkFile: "counts.csv"}
	}
	topic := func(name string, flags ...string) engine {
		return engine{name: name, kind: "ptfsh", flags: flags, script: "keyed_count_kafka.sql", kafka: true}
	}
	return []workload{
		{
			name: "K", title: "B keyed count: a 3-partition topic of JSON into a topic, and a CSV file into a CSV file",
			data: clicks, fn: "bench/workloads/keyed_count.js",
			engines: []engine{csv("ptfsh, csv file → csv file"), topic("ptfsh, topic → topic")},
			ref:     "ptfsh, csv file → csv file",
		},
		{
			name: "K-p2", title: "the same with --parallelism 2",
			data: clicks, fn: "bench/workloads/keyed_count.js",
			engines: []engine{csv("ptfsh --parallelism 2, csv file → csv file", "--parallelism", "2"),
				topic("ptfsh --parallelism 2, topic → topic", "--parallelism", "2")},
			ref: "ptfsh --parallelism 2, csv file → csv file",
		},
	}
}

// needsKafka reports whether a workload of ws reads a topic.
func needsKafka(ws []workload) bool {
	for _, w := range ws {
		for _, en := range w.engines {
			if en.kafka {
				return true
			}
		}
	}
	return false
}

// startKafka starts the broker, makes the topics clicks and counts (3
// partitions each) and writes the data set into clicks with ptfsh
// (bench/workloads/kafka_load.sql). It returns the servers and the stop.
func startKafka(c config, e *env, d dataSet, stderr io.Writer) (string, func(), error) {
	fmt.Fprintln(stderr, "starting a Kafka broker (kafka_2.13 "+kafkatest.KafkaVersion+", Maven and Java)")
	servers, stop, err := kafkatest.RunBroker()
	if err != nil {
		return "", nil, err
	}
	fail := func(err error) (string, func(), error) { stop(); return "", nil, err }
	ctx := context.Background()
	cl, err := kafka.Dial(ctx, kafka.Config{Servers: []string{servers}, Timeout: 30 * time.Second})
	if err != nil {
		return fail(err)
	}
	defer cl.Close()
	for _, t := range []string{"clicks", "counts"} {
		if err := cl.CreateTopic(ctx, t, 3); err != nil {
			return fail(err)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if tps, err := cl.Partitions(ctx, []string{"clicks", "counts"}); err == nil && len(tps) == 6 {
			break
		}
		if time.Now().After(deadline) {
			return fail(fmt.Errorf("the topics clicks and counts are not there 30 s after their creation"))
		}
	}
	dir := filepath.Join(e.work, "kafka-load")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(err)
	}
	src, err := os.ReadFile(filepath.Join(c.root, "bench", "workloads", "kafka_load.sql"))
	if err != nil {
		return fail(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "load.sql"), []byte(strings.ReplaceAll(string(src), "${KAFKA}", servers)), 0o644); err != nil {
		return fail(err)
	}
	if err := os.Symlink(e.data[d], filepath.Join(dir, d.file())); err != nil {
		return fail(err)
	}
	fmt.Fprintf(stderr, "writing %s into the topic clicks\n", d.file())
	load := exec.Command(e.ptfsh, "-f", "load.sql")
	load.Dir = dir
	if out, err := load.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("loading the topic: %v\n%s", err, out))
	}
	return servers, stop, nil
}
