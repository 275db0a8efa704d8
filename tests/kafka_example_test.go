package tests

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/assembly"
	"github.com/ptfsh/ptfsh/runtime/connector/kafka/kafkatest"
	"github.com/ptfsh/ptfsh/state"
)

// TestKafkaExample runs the scripts of examples/kafka against a fake
// cluster (a real broker with PTFSH_KAFKA=1) with their topics clicks and
// taps (three partitions) and alerts, localhost:9092 standing for the
// cluster's address, and compares what each prints with its .out file.
func TestKafkaExample(t *testing.T) {
	for _, name := range []string{"click_alerts", "partitions"} {
		t.Run(name, func(t *testing.T) {
			servers := kafkaTopics(t, map[string]int{"clicks": 3, "alerts": 3, "taps": 3})
			dir := filepath.Join("..", "examples", "kafka")
			src, err := os.ReadFile(filepath.Join(dir, name+".sql"))
			if err != nil {
				t.Fatal(err)
			}
			got := runKafkaScript(t, dir, strings.ReplaceAll(string(src), "localhost:9092", servers))
			got = strings.ReplaceAll(got, servers, "localhost:9092")
			golden := filepath.Join(dir, name+".out")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			// The alerts come from three partitions, read in the order
			// their fetches return: a table's rows may come in any order.
			if diff := cmp.Diff(sortTableRows(string(want)), sortTableRows(got)); diff != "" {
				t.Errorf("examples/kafka/%s.sql prints (-want +got, each table's rows sorted):\n%s", name, diff)
			}
		})
	}
}

// kafkaTopics starts a fake cluster with the topics (a real broker with
// PTFSH_KAFKA=1) and returns its bootstrap servers.
func kafkaTopics(t *testing.T, topics map[string]int) string {
	var lines []string
	for name, n := range topics {
		lines = append(lines, name+" "+itoa(n))
	}
	if !kafkatest.Real {
		// A fake cluster's topics share one partition count: the largest.
		most := 1
		for _, n := range topics {
			most = max(most, n)
		}
		var names []string
		for name := range topics {
			names = append(names, name)
		}
		return kafkatest.Start(t, most, names...).Servers()
	}
	return startKafka(t, func(string) (string, bool) { return strings.Join(lines, "\n"), true })
}

func itoa(n int) string { return strconv.Itoa(n) }

// runKafkaScript runs a script file's statements with the folder dir for
// its relative paths, stdout and errors together.
func runKafkaScript(t *testing.T, dir, src string) string {
	t.Helper()
	var out bytes.Buffer
	store := state.NewMem()
	defer store.Close()
	abs, _ := filepath.Abs(dir)
	sh, err := assembly.New(assembly.Options{Out: &out, Store: store, BaseDir: abs, EvalTimeout: assembly.DefaultEvalTimeout, ProcessingTime: assembly.TestProcessingTime})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	sh.RunEach(context.Background(), "click_alerts.sql", src, &out)
	return out.String()
}

// sortTableRows sorts the rows of each tableau table in out (the runs of
// lines that start with "| +", "| -").
func sortTableRows(out string) string {
	lines := strings.SplitAfter(out, "\n")
	isRow := func(l string) bool { return strings.HasPrefix(l, "| +") || strings.HasPrefix(l, "| -") }
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && isRow(lines[j]) {
			j++
		}
		slices.Sort(lines[i:j])
		i = max(j, i+1)
	}
	return strings.Join(lines, "")
}
