// Package kafkatest starts an in-process fake Kafka cluster (franz-go's
// kfake) for tests: no network beyond loopback, no broker to install.
package kafkatest

import (
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
)

// Cluster is a running fake cluster.
type Cluster struct {
	c *kfake.Cluster
}

// Start starts a one-broker fake cluster whose topics (created ahead)
// have the given number of partitions each; t's cleanup stops it.
func Start(t testing.TB, partitions int, topics ...string) *Cluster {
	t.Helper()
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.DefaultNumPartitions(partitions)}
	if len(topics) > 0 {
		opts = append(opts, kfake.SeedTopics(int32(partitions), topics...))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatalf("starting a fake Kafka cluster: %v", err)
	}
	t.Cleanup(c.Close)
	return &Cluster{c: c}
}

// Servers is the cluster's bootstrap servers, comma-separated, as
// 'properties.bootstrap.servers' takes them.
func (c *Cluster) Servers() string { return strings.Join(c.c.ListenAddrs(), ",") }
