package session

import (
	"context"

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
	n, err := p.Query(ins.Query)
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
