package session

import (
	"context"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/connector"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/plan"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// INSERT INTO a Kafka table ('connector' = 'kafka' or 'upsert-kafka'):
// the query's columns map by position to the table's persisted columns
// (physical ones and metadata columns that are not VIRTUAL), as in Flink.
// A kafka table takes an insert-only query unless its value format is
// debezium-json, which writes the retract changelog; an upsert-kafka
// table takes any query in its upsert form, keyed by its PRIMARY KEY.

// isKafka reports whether ins writes a Kafka table.
func isKafka(cat *catalog.Catalog, ins *sqlmini.Insert) bool {
	t, ok := cat.Table(string(ins.Table.Value))
	if !ok || t.Kind != catalog.TableConnector {
		return false
	}
	c := t.Options["connector"]
	return c == "kafka" || c == "upsert-kafka"
}

// planKafkaInsert plans one INSERT INTO a Kafka table.
func (s *Session) planKafkaInsert(ctx context.Context, p *plan.Planner, ins *sqlmini.Insert) (exec.Node, tableSink, error) {
	name := string(ins.Table.Value)
	pos := ins.Table.Pos
	t, _ := s.cat.Table(name)
	if ins.Overwrite {
		return nil, nil, sqlmini.Errorf(pos, "INSERT OVERWRITE is not supported by a Kafka table ('%s'); use INSERT INTO", name)
	}
	sk, err := connector.NewKafkaSink(ctx, t, pos, s.cfg.Store)
	if err != nil {
		return nil, nil, err
	}
	p.Required = types.RetractAll
	n, err := p.Statement(ins.Query)
	if err != nil {
		return nil, nil, err
	}
	sinkT := *t
	sinkT.Schema = sk.Schema()
	if err := checkSinkColumns(&sinkT, n.Schema(), pos); err != nil {
		return nil, nil, err
	}
	if m := n.Changelog(); !m.IsInsertOnly() {
		switch {
		case sk.Upsert():
			n = plan.DeliverUpdates(n, 0, t.PrimaryKey)
		case sk.Changelog():
			n = plan.DeliverUpdates(n, ptf.RequireUpdateBefore|ptf.RequireFullDelete, nil)
		default:
			return nil, nil, sqlmini.Errorf(pos, "Table sink '%s' doesn't support consuming update and delete changes which is produced by node %s; write them to an upsert-kafka table (with a PRIMARY KEY) or with 'value.format' = 'debezium-json'",
				name, plan.UpdatingNode(n).Explain())
		}
	}
	return n, sk, nil
}

// showTopics runs SHOW TOPICS [FROM table | IN 'servers']: the topics of
// the cluster at the given servers, of a Kafka table's servers, or, with
// neither, of the one cluster the session's Kafka tables name.
func (s *Session) showTopics(sh *sqlmini.Show) error {
	var servers string
	switch {
	case sh.TopicsAt != nil:
		servers = string(*sh.TopicsAt)
	case sh.TopicsOf != nil:
		name := string(sh.TopicsOf.Value)
		t, ok := s.cat.Table(name)
		if !ok {
			return sqlmini.Errorf(sh.TopicsOf.Pos, "Object '%s' not found%s", name, s.cat.SuggestTable(name))
		}
		if c := t.Options["connector"]; c != "kafka" && c != "upsert-kafka" {
			return sqlmini.Errorf(sh.TopicsOf.Pos, "table '%s' is not a Kafka table ('connector' = 'kafka' or 'upsert-kafka')", name)
		}
		servers = t.Options["properties.bootstrap.servers"]
	default:
		seen := map[string]bool{}
		var all []string
		for _, n := range s.cat.TableNames() {
			t, _ := s.cat.Table(n)
			if c := t.Options["connector"]; (c == "kafka" || c == "upsert-kafka") && !seen[t.Options["properties.bootstrap.servers"]] {
				seen[t.Options["properties.bootstrap.servers"]] = true
				all = append(all, t.Options["properties.bootstrap.servers"])
			}
		}
		switch len(all) {
		case 0:
			return sqlmini.Errorf(sh.Pos, "SHOW TOPICS needs a cluster: no Kafka table names one; say SHOW TOPICS IN 'host:port' (or FROM a Kafka table)")
		case 1:
			servers = all[0]
		default:
			return sqlmini.Errorf(sh.Pos, "the Kafka tables name %d clusters (%s); say which: SHOW TOPICS IN 'host:port' or FROM a table", len(all), strings.Join(all, "; "))
		}
	}
	topics, err := connector.KafkaTopics(context.Background(), servers)
	if err != nil {
		return sqlmini.Errorf(sh.Pos, "%w", err)
	}
	rows := make([][]string, len(topics))
	for i, tp := range topics {
		rows[i] = []string{tp.Name, strconv.Itoa(tp.Partitions)}
	}
	return printMeta(s.cfg.Out, []string{"topic name", "partitions"}, rows)
}
