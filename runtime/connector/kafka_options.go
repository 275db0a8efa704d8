package connector

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/connector/kafka"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// The 'kafka' and 'upsert-kafka' connectors read and write topics with
// the options of Flink's Kafka SQL connectors:
//
//	CREATE TABLE clicks (
//	  user_id STRING, url STRING, ts TIMESTAMP_LTZ(3),
//	  `partition` INT METADATA VIRTUAL, `offset` BIGINT METADATA VIRTUAL,
//	  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
//	) WITH (
//	  'connector' = 'kafka', 'topic' = 'clicks',
//	  'properties.bootstrap.servers' = 'localhost:9092',
//	  'scan.startup.mode' = 'earliest-offset',
//	  'scan.bounded.mode' = 'latest-offset',
//	  'format' = 'json');
//
// The options are checked at CREATE TABLE (kafka_options.go); a query
// reads the table through a Kafka source (kafka_source.go) and INSERT INTO
// writes it through a Kafka sink (kafka_sink.go); records become rows and
// rows records through the formats of kafka_format.go. The client itself
// is runtime/connector/kafka.

// kafkaOptions are the options both Kafka connectors read, besides
// 'properties.*' and the formats' options; '#' is a format's name.
var kafkaOptions = []string{"connector", "topic", "properties.bootstrap.servers", "properties.group.id",
	"key.format", "key.fields-prefix", "value.format", "value.fields-include",
	"scan.bounded.mode", "scan.bounded.specific-offsets", "scan.bounded.timestamp-millis",
	"sink.delivery-guarantee", "sink.transactional-id-prefix"}

// kafkaOnly are the options of 'kafka' that 'upsert-kafka' lacks.
var kafkaOnly = []string{"topic-pattern", "format", "key.fields", "scan.startup.mode", "scan.startup.specific-offsets",
	"scan.startup.timestamp-millis", "scan.topic-partition-discovery.interval", "sink.partitioner"}

// kafkaRefused are Flink options ptfsh does not take, and why.
var kafkaRefused = map[string]string{
	"sink.parallelism":                   "ptfsh's Kafka sink is one writer",
	"scan.parallelism":                   "ptfsh reads a topic's partitions in one source",
	"sink.semantic":                      "Flink replaced it by 'sink.delivery-guarantee'",
	"sink.buffer-flush.max-rows":         "ptfsh's upsert-kafka sink writes every change",
	"sink.buffer-flush.interval":         "ptfsh's upsert-kafka sink writes every change",
	"scan.watermark.emit.strategy":       "ptfsh emits watermarks periodically (SET 'pipeline.auto-watermark-interval')",
	"scan.watermark.alignment.group":     "ptfsh has no watermark alignment",
	"scan.watermark.alignment.max-drift": "ptfsh has no watermark alignment",
	"scan.watermark.idle-timeout":        "use SET 'table.exec.source.idle-timeout'",
	"scan.header-filter":                 "ptfsh reads every record",
	"properties.transactional.id":        "the sink makes its transactional ids from 'sink.transactional-id-prefix'",
	"properties.enable.auto.commit":      "ptfsh commits a group's offsets itself, after checkpoints",
	"properties.key.deserializer":        "the key format decodes keys",
	"properties.value.deserializer":      "the value format decodes values",
	"properties.key.serializer":          "the key format encodes keys",
	"properties.value.serializer":        "the value format encodes values",
}

// kafkaProperties are the 'properties.*' keys the client honours; others
// are refused by name, since a Kafka client option ptfsh would ignore
// silently could change what a job means.
var kafkaProperties = map[string]bool{"bootstrap.servers": true, "group.id": true, "client.id": true,
	"isolation.level": true, "auto.offset.reset": true, "transaction.timeout.ms": true,
	"request.timeout.ms": true, "partition.discovery.interval.ms": true,
	"compression.type": true, "linger.ms": true}

// Kafka formats.
const (
	fmtJSON      = "json"
	fmtCSV       = "csv"
	fmtRaw       = "raw"
	fmtDebezium  = "debezium-json"
	fmtAvroConfl = "avro-confluent"
)

// kafkaFormatOptions are the options of each format, after its prefix
// ('json.', 'key.json.', 'value.json.').
var kafkaFormatOptions = map[string][]string{
	fmtJSON:      {"ignore-parse-errors", "fail-on-missing-field", "timestamp-format.standard", "encode.decimal-as-plain-number", "map-null-key.mode", "map-null-key.literal"},
	fmtCSV:       {"ignore-parse-errors", "field-delimiter", "quote-character", "null-literal", "allow-comments", "disable-quote-character"},
	fmtRaw:       {"charset", "endianness"},
	fmtDebezium:  {"ignore-parse-errors", "schema-include", "timestamp-format.standard"},
	fmtAvroConfl: {"url", "subject", "schema"},
}

// kafkaFormat is a key or value format and its options (without prefix).
type kafkaFormat struct {
	name string
	opts map[string]string
	// prefix is how its options are written: 'json.', 'value.json.'.
	prefix string
}

// Startup and bounded modes.
const (
	modeEarliest  = "earliest-offset"
	modeLatest    = "latest-offset"
	modeGroup     = "group-offsets"
	modeTimestamp = "timestamp"
	modeSpecific  = "specific-offsets"
	modeUnbounded = "unbounded"
)

// Delivery guarantees.
const (
	deliveryAtLeastOnce = "at-least-once"
	deliveryExactlyOnce = "exactly-once"
	deliveryNone        = "none"
)

// kafkaSpec is a Kafka table's options, read and checked.
type kafkaSpec struct {
	upsert                     bool
	topics                     []string
	pattern                    *regexp.Regexp
	servers                    []string
	group                      string
	clientID                   string
	auth                       kafka.Auth // security.protocol, SASL and SSL
	readCommitted              bool
	resetEarliest, resetLatest bool // properties.auto.offset.reset

	startMode      string
	startOffsets   map[int32]int64
	startTimestamp int64
	boundMode      string
	boundOffsets   map[int32]int64
	boundTimestamp int64

	key, value *kafkaFormat
	// keyCols and valueCols are the table's columns each format carries,
	// in the format's order; keyPrefix is taken off the key's names.
	keyCols, valueCols []int
	keyPrefix          string

	partitioner  string
	delivery     string
	txnPrefix    string
	txnTimeoutMs int64
	// compression and lingerMs are the producer's 'properties.compression.type'
	// and 'properties.linger.ms' (lingerMs < 0: not set).
	compression string
	lingerMs    int64
}

// kafkaOptionError is a bad option; key names it (empty: the table).
type kafkaOptionError struct{ key, msg string }

func (e *kafkaOptionError) Error() string { return e.msg }

func kerrf(key, format string, args ...any) error {
	return &kafkaOptionError{key: key, msg: fmt.Sprintf(format, args...)}
}

// kafkaMetadata are the metadata keys of a Kafka table, with their types
// and whether a sink writes them (Flink's KafkaDynamicSource and
// KafkaDynamicSink ReadableMetadata and WritableMetadata).
var kafkaMetadata = map[string]struct {
	typ      types.Type
	writable bool
}{
	"topic":          {types.Type{Kind: types.KindVarChar, Length: types.MaxLength, NotNull: true}, true},
	"partition":      {types.Type{Kind: types.KindInt, NotNull: true}, false},
	"headers":        {types.Type{Kind: types.KindMap, NotNull: true, Key: &types.Type{Kind: types.KindVarChar, Length: types.MaxLength}, Elem: &types.Type{Kind: types.KindVarBinary, Length: types.MaxLength}}, true},
	"leader-epoch":   {types.Type{Kind: types.KindInt}, false},
	"offset":         {types.Type{Kind: types.KindBigInt, NotNull: true}, false},
	"timestamp":      {types.Type{Kind: types.KindTimestampLTZ, Length: 3, NotNull: true}, true},
	"timestamp-type": {types.Type{Kind: types.KindVarChar, Length: types.MaxLength, NotNull: true}, false},
}

// CheckMetadata refuses metadata columns on a connector that has none,
// and, on a Kafka table, keys Kafka lacks and types that do not fit.
func CheckMetadata(f Factory, t *catalog.Table, ct *sqlmini.CreateTable) error {
	if len(t.Metadata) == 0 {
		return nil
	}
	_, isKafka := f.(kafkaConnector)
	idx := make([]int, 0, len(t.Metadata))
	for i := range t.Metadata {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		m := t.Metadata[i]
		c := t.Schema.Columns[i]
		pos := declaredAt(ct, c.Name)
		if !isKafka {
			return sqlmini.Errorf(pos, "column '%s' is a METADATA column, but connector '%s' has no metadata; only kafka and upsert-kafka tables have", c.Name, f.Name())
		}
		md, ok := kafkaMetadata[m.Key]
		if !ok {
			keys := make([]string, 0, len(kafkaMetadata))
			for k := range kafkaMetadata {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			return sqlmini.Errorf(pos, "Invalid metadata key '%s' in column '%s' of table '%s'. The DynamicTableSource class '%s' supports the following metadata keys for reading:\n%s",
				m.Key, c.Name, t.Name, f.Name(), strings.Join(keys, "\n"))
		}
		if !metadataFits(md.typ, c.Type) {
			return sqlmini.Errorf(pos, "metadata column '%s' reads '%s', which is %s; declare it %s (or a type it widens to)", c.Name, m.Key, md.typ, md.typ.Nullable())
		}
		if !m.Virtual && !md.writable {
			return sqlmini.Errorf(pos, "metadata key '%s' can only be read; declare column '%s' %s METADATA%s VIRTUAL, as Flink requires", m.Key, c.Name, c.Type, fromText(m.Key, c.Name))
		}
		for _, k := range t.PrimaryKey {
			if k == i {
				return sqlmini.Errorf(pos, "metadata column '%s' cannot be part of the PRIMARY KEY", c.Name)
			}
		}
	}
	return nil
}

func fromText(key, col string) string {
	if key == col {
		return ""
	}
	return " FROM '" + key + "'"
}

// metadataFits reports whether a metadata value of type from may be read
// into a column of type to: the same kind, or an integer widened.
func metadataFits(from, to types.Type) bool {
	if from.Kind == to.Kind {
		return true
	}
	switch from.Kind {
	case types.KindInt:
		return to.Kind == types.KindBigInt
	case types.KindTimestampLTZ:
		return to.Kind == types.KindTimestamp
	}
	return false
}

// declaredAt is where CREATE TABLE declares column name.
func declaredAt(ct *sqlmini.CreateTable, name string) sqlmini.Pos {
	for _, el := range ct.Elements {
		if el.Column != nil && string(el.Column.Name.Value) == name {
			return el.Pos
		}
	}
	return ct.Pos
}

// parseKafka reads and checks the options of a Kafka table.
func parseKafka(t *catalog.Table, upsert bool) (*kafkaSpec, error) {
	o := t.Options
	s := &kafkaSpec{upsert: upsert, startMode: modeGroup, boundMode: modeUnbounded, delivery: deliveryAtLeastOnce}
	conn := "kafka"
	if upsert {
		conn = "upsert-kafka"
		s.startMode = modeEarliest
	}
	known := map[string]bool{}
	for _, k := range kafkaOptions {
		known[k] = true
	}
	if !upsert {
		for _, k := range kafkaOnly {
			known[k] = true
		}
	}
	// Formats first: their options are known by prefix.
	var err error
	if s.key, s.value, err = kafkaFormats(o, upsert); err != nil {
		return nil, err
	}
	for _, f := range []*kafkaFormat{s.key, s.value} {
		if f == nil {
			continue
		}
		for _, k := range kafkaFormatOptions[f.name] {
			known[f.prefix+k] = true
		}
	}
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if why, ok := kafkaRefused[k]; ok {
			return nil, kerrf(k, "option '%s' of Flink's %s connector is not supported by ptfsh: %s", k, conn, why)
		}
		if p, ok := strings.CutPrefix(k, "properties."); ok {
			if isSecurityKey(p) {
				continue // parseKafkaSecurity
			}
			if !kafkaProperties[p] {
				return nil, kerrf(k, "option '%s' is a Kafka client property ptfsh does not pass on; it passes %s", k, propertyList())
			}
			continue
		}
		if !known[k] {
			for f := range kafkaFormatOptions {
				for _, pre := range []string{f + ".", "key." + f + ".", "value." + f + "."} {
					if strings.HasPrefix(k, pre) && contains(kafkaFormatOptions[f], strings.TrimPrefix(k, pre)) {
						return nil, kerrf(k, "option '%s' is for the %s format, which the table's %s does not use", k, f, formatRole(pre))
					}
				}
			}
			if upsert && contains(kafkaOnly, k) {
				return nil, kerrf(k, "option '%s' is the kafka connector's; an upsert-kafka table reads its topic from the start to the end and takes its key from the PRIMARY KEY", k)
			}
			return nil, kerrf(k, "unsupported option '%s' for connector '%s'; supported: %s, properties.*, and the options of its formats", k, conn, strings.Join(optionNames(upsert), ", "))
		}
	}
	// Topics and servers.
	if v, ok := o["topic"]; ok {
		for _, tp := range strings.Split(v, ";") {
			if tp = strings.TrimSpace(tp); tp != "" {
				s.topics = append(s.topics, tp)
			}
		}
		if len(s.topics) == 0 {
			return nil, kerrf("topic", "option 'topic' names no topic")
		}
		if upsert && len(s.topics) > 1 {
			return nil, kerrf("topic", "an upsert-kafka table reads one topic, not '%s'", v)
		}
	}
	if v, ok := o["topic-pattern"]; ok {
		if len(s.topics) > 0 {
			return nil, kerrf("topic-pattern", "give either 'topic' or 'topic-pattern', not both")
		}
		re, err := regexp.Compile("^(?:" + v + ")$")
		if err != nil {
			return nil, kerrf("topic-pattern", "option 'topic-pattern' is not a regular expression: %v", err)
		}
		s.pattern = re
	}
	if len(s.topics) == 0 && s.pattern == nil {
		return nil, kerrf("", "table '%s' needs a 'topic' option (or 'topic-pattern')", t.Name)
	}
	for _, sv := range strings.Split(o["properties.bootstrap.servers"], ",") {
		if sv = strings.TrimSpace(sv); sv != "" {
			s.servers = append(s.servers, sv)
		}
	}
	if len(s.servers) == 0 {
		return nil, kerrf("", "table '%s' needs the option 'properties.bootstrap.servers' (host:port of its brokers, comma-separated)", t.Name)
	}
	s.group = o["properties.group.id"]
	s.clientID = o["properties.client.id"]
	if s.auth, err = parseKafkaSecurity(o); err != nil {
		return nil, err
	}
	switch v := o["properties.isolation.level"]; v {
	case "", "read_uncommitted":
	case "read_committed":
		s.readCommitted = true
	default:
		return nil, kerrf("properties.isolation.level", "option 'properties.isolation.level' is 'read_committed' or 'read_uncommitted', not '%s'", v)
	}
	switch v := o["properties.auto.offset.reset"]; v {
	case "", "none":
	case "earliest":
		s.resetEarliest = true
	case "latest":
		s.resetLatest = true
	default:
		return nil, kerrf("properties.auto.offset.reset", "option 'properties.auto.offset.reset' is 'earliest', 'latest' or 'none', not '%s'", v)
	}
	if v, ok := o["properties.transaction.timeout.ms"]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return nil, kerrf("properties.transaction.timeout.ms", "option 'properties.transaction.timeout.ms' needs a positive whole number of milliseconds, not '%s'", v)
		}
		s.txnTimeoutMs = n
	}
	switch v := o["properties.compression.type"]; v {
	case "", "none", "gzip", "snappy", "lz4", "zstd":
		s.compression = v
	default:
		return nil, kerrf("properties.compression.type", "option 'properties.compression.type' is 'none', 'gzip', 'snappy', 'lz4' or 'zstd', not '%s'", v)
	}
	s.lingerMs = -1
	if v, ok := o["properties.linger.ms"]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return nil, kerrf("properties.linger.ms", "option 'properties.linger.ms' needs a whole number of milliseconds, 0 or more, not '%s'", v)
		}
		s.lingerMs = n
	}
	// Where reading starts and ends.
	if v, ok := o["scan.startup.mode"]; ok {
		s.startMode = v
	}
	switch s.startMode {
	case modeEarliest, modeLatest, modeGroup:
	case modeTimestamp:
		if s.startTimestamp, err = millisOption(o, "scan.startup.timestamp-millis", "scan.startup.mode"); err != nil {
			return nil, err
		}
	case modeSpecific:
		if s.startOffsets, err = specificOffsets(o, "scan.startup.specific-offsets", "scan.startup.mode"); err != nil {
			return nil, err
		}
	default:
		return nil, kerrf("scan.startup.mode", "option 'scan.startup.mode' is one of earliest-offset, latest-offset, group-offsets, timestamp, specific-offsets, not '%s'", s.startMode)
	}
	if v, ok := o["scan.bounded.mode"]; ok {
		s.boundMode = v
	}
	switch s.boundMode {
	case modeUnbounded, modeLatest:
	case modeGroup:
		if s.group == "" {
			return nil, kerrf("scan.bounded.mode", "'scan.bounded.mode' = 'group-offsets' needs 'properties.group.id'")
		}
	case modeTimestamp:
		if s.boundTimestamp, err = millisOption(o, "scan.bounded.timestamp-millis", "scan.bounded.mode"); err != nil {
			return nil, err
		}
	case modeSpecific:
		if s.boundOffsets, err = specificOffsets(o, "scan.bounded.specific-offsets", "scan.bounded.mode"); err != nil {
			return nil, err
		}
	default:
		return nil, kerrf("scan.bounded.mode", "option 'scan.bounded.mode' is one of unbounded, latest-offset, group-offsets, timestamp, specific-offsets, not '%s'", s.boundMode)
	}
	for _, k := range []string{"scan.startup.timestamp-millis", "scan.startup.specific-offsets"} {
		if _, ok := o[k]; ok && !strings.Contains(k, s.startMode) {
			return nil, kerrf(k, "option '%s' needs 'scan.startup.mode' = '%s'", k, strings.TrimSuffix(strings.TrimPrefix(k, "scan.startup."), "-millis"))
		}
	}
	for _, k := range []string{"scan.bounded.timestamp-millis", "scan.bounded.specific-offsets"} {
		if _, ok := o[k]; ok && !strings.Contains(k, s.boundMode) {
			return nil, kerrf(k, "option '%s' needs 'scan.bounded.mode' = '%s'", k, strings.TrimSuffix(strings.TrimPrefix(k, "scan.bounded."), "-millis"))
		}
	}
	if err := s.columns(t); err != nil {
		return nil, err
	}
	// The sink.
	s.partitioner = "default"
	if v, ok := o["sink.partitioner"]; ok {
		switch v {
		case "default", "fixed", "round-robin":
			s.partitioner = v
		default:
			return nil, kerrf("sink.partitioner", "option 'sink.partitioner' is 'default', 'fixed' or 'round-robin' in ptfsh (a partitioner class cannot run here), not '%s'", v)
		}
	}
	if v, ok := o["sink.delivery-guarantee"]; ok {
		switch v {
		case deliveryAtLeastOnce, deliveryNone:
			s.delivery = v
		case deliveryExactlyOnce:
			s.delivery = v
			if s.txnPrefix = o["sink.transactional-id-prefix"]; s.txnPrefix == "" {
				return nil, kerrf("sink.delivery-guarantee", "'sink.delivery-guarantee' = 'exactly-once' needs 'sink.transactional-id-prefix' (a prefix for the sink's Kafka transactional ids, unique to the job)")
			}
		default:
			return nil, kerrf("sink.delivery-guarantee", "option 'sink.delivery-guarantee' is 'at-least-once', 'exactly-once' or 'none', not '%s'", v)
		}
	}
	if _, ok := o["sink.transactional-id-prefix"]; ok && s.delivery != deliveryExactlyOnce {
		return nil, kerrf("sink.transactional-id-prefix", "option 'sink.transactional-id-prefix' is for 'sink.delivery-guarantee' = 'exactly-once'")
	}
	return s, nil
}

// formatRole names what a format option's prefix is for.
func formatRole(prefix string) string {
	switch {
	case strings.HasPrefix(prefix, "key."):
		return "key ('key.format')"
	case strings.HasPrefix(prefix, "value."):
		return "value ('value.format')"
	}
	return "value ('format')"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func optionNames(upsert bool) []string {
	names := append([]string(nil), kafkaOptions...)
	if !upsert {
		names = append(names, kafkaOnly...)
	}
	sort.Strings(names)
	return names
}

func propertyList() string {
	var ps []string
	for p := range kafkaProperties {
		ps = append(ps, "properties."+p)
	}
	sort.Strings(ps)
	return strings.Join(ps, ", ")
}

// millisOption reads a timestamp option in epoch milliseconds.
func millisOption(o map[string]string, key, mode string) (int64, error) {
	v, ok := o[key]
	if !ok {
		return 0, kerrf(mode, "'%s' = 'timestamp' needs '%s' (epoch milliseconds)", mode, key)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 {
		return 0, kerrf(key, "option '%s' needs epoch milliseconds, not '%s'", key, v)
	}
	return n, nil
}

// specificOffsets reads Flink's 'partition:0,offset:42;partition:1,offset:300'.
func specificOffsets(o map[string]string, key, mode string) (map[int32]int64, error) {
	v, ok := o[key]
	if !ok {
		return nil, kerrf(mode, "'%s' = 'specific-offsets' needs '%s' ('partition:0,offset:42;partition:1,offset:300')", mode, key)
	}
	out := map[int32]int64{}
	for _, part := range strings.Split(v, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		var p int32
		var off int64
		fields := strings.Split(part, ",")
		okp, oko := false, false
		for _, f := range fields {
			k, val, found := strings.Cut(strings.TrimSpace(f), ":")
			n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
			if !found || err != nil || n < 0 {
				okp, oko = false, false
				break
			}
			switch strings.TrimSpace(k) {
			case "partition":
				p, okp = int32(n), true
			case "offset":
				off, oko = n, true
			}
		}
		if len(fields) != 2 || !okp || !oko {
			return nil, kerrf(key, "option '%s': '%s' is not 'partition:N,offset:M' (entries separated by ';')", key, part)
		}
		out[p] = off
	}
	if len(out) == 0 {
		return nil, kerrf(key, "option '%s' names no partition", key)
	}
	return out, nil
}

// kafkaFormats reads 'format' / 'key.format' / 'value.format'.
func kafkaFormats(o map[string]string, upsert bool) (key, value *kafkaFormat, err error) {
	mk := func(name, prefix string) (*kafkaFormat, error) {
		if _, ok := kafkaFormatOptions[name]; !ok {
			return nil, kerrf(strings.TrimSuffix(prefix, name+".")+"format", "unsupported format '%s'; available: avro-confluent, csv, debezium-json, json, raw", name)
		}
		f := &kafkaFormat{name: name, prefix: prefix, opts: map[string]string{}}
		for _, k := range kafkaFormatOptions[name] {
			if v, ok := o[prefix+k]; ok {
				f.opts[k] = v
			}
		}
		return f, nil
	}
	v, hasFormat := o["format"]
	vv, hasValue := o["value.format"]
	switch {
	case hasFormat && hasValue:
		return nil, nil, kerrf("format", "give either 'format' or 'value.format', not both")
	case hasFormat:
		if value, err = mk(v, v+"."); err != nil {
			return nil, nil, err
		}
	case hasValue:
		if value, err = mk(vv, "value."+vv+"."); err != nil {
			return nil, nil, err
		}
	default:
		return nil, nil, kerrf("", "a Kafka table needs a value format: 'format' = 'json' (or csv, raw, debezium-json, avro-confluent), or 'value.format'")
	}
	if kv, ok := o["key.format"]; ok {
		if kv == fmtDebezium {
			return nil, nil, kerrf("key.format", "'debezium-json' is a value format; a key takes json, csv, raw or avro-confluent")
		}
		if key, err = mk(kv, "key."+kv+"."); err != nil {
			return nil, nil, err
		}
	} else if upsert {
		return nil, nil, kerrf("", "an upsert-kafka table needs 'key.format' (the format of its PRIMARY KEY in the record key) and 'value.format'")
	}
	if upsert && (hasFormat || value.name == fmtDebezium) {
		if hasFormat {
			return nil, nil, kerrf("format", "an upsert-kafka table takes 'key.format' and 'value.format', not 'format'")
		}
		return nil, nil, kerrf("value.format", "an upsert-kafka table's values are rows, not a changelog: use json, csv, raw or avro-confluent")
	}
	return key, value, nil
}

// columns decides which columns the key and the value carry.
func (s *kafkaSpec) columns(t *catalog.Table) error {
	s.keyPrefix = t.Options["key.fields-prefix"]
	var keyNames []string
	if s.upsert {
		if len(t.PrimaryKey) == 0 {
			return kerrf("", "an upsert-kafka table needs a PRIMARY KEY (..) NOT ENFORCED: its key is the record key")
		}
		for _, i := range t.PrimaryKey {
			keyNames = append(keyNames, t.Schema.Columns[i].Name)
		}
	} else if v, ok := t.Options["key.fields"]; ok {
		for _, n := range strings.Split(v, ";") {
			if n = strings.TrimSpace(n); n != "" {
				keyNames = append(keyNames, n)
			}
		}
	}
	if s.key != nil && len(keyNames) == 0 {
		return kerrf("key.format", "'key.format' needs 'key.fields' (the columns of the record key, separated by ';')")
	}
	if s.key == nil && len(keyNames) > 0 {
		return kerrf("key.fields", "'key.fields' needs 'key.format' (how the key's columns are written)")
	}
	inKey := map[int]bool{}
	for _, n := range keyNames {
		i := t.Schema.Index(n)
		if i < 0 || !t.Physical(i) {
			return kerrf("key.fields", "key field '%s' is not a physical column of %s: %s", n, t.Name, t.Schema.ColumnList())
		}
		if !strings.HasPrefix(n, s.keyPrefix) {
			return kerrf("key.fields", "key field '%s' does not start with the 'key.fields-prefix' '%s'", n, s.keyPrefix)
		}
		s.keyCols = append(s.keyCols, i)
		inKey[i] = true
	}
	include := strings.ToUpper(t.Options["value.fields-include"])
	switch include {
	case "", "ALL":
		if s.keyPrefix != "" {
			return kerrf("key.fields-prefix", "'key.fields-prefix' needs 'value.fields-include' = 'EXCEPT_KEY', as in Flink")
		}
	case "EXCEPT_KEY":
	default:
		return kerrf("value.fields-include", "option 'value.fields-include' is 'ALL' or 'EXCEPT_KEY', not '%s'", t.Options["value.fields-include"])
	}
	for i := range t.Schema.Columns {
		if t.Physical(i) && !(include == "EXCEPT_KEY" && inKey[i]) {
			s.valueCols = append(s.valueCols, i)
		}
	}
	if err := checkFormatColumns(t, s.value, s.valueCols, "value"); err != nil {
		return err
	}
	if s.key != nil {
		if err := checkFormatColumns(t, s.key, s.keyCols, "key"); err != nil {
			return err
		}
	}
	return nil
}

// checkFormatColumns checks what a format can carry.
func checkFormatColumns(t *catalog.Table, f *kafkaFormat, cols []int, part string) error {
	key := f.prefix[:len(f.prefix)-len(f.name)-1] + "format"
	if strings.HasPrefix(f.prefix, f.name) {
		key = "format"
	}
	if f.name == fmtRaw {
		if len(cols) != 1 {
			return kerrf(key, "the raw format carries one column, but the %s of table '%s' has %d", part, t.Name, len(cols))
		}
		switch c := t.Schema.Columns[cols[0]].Type; c.Kind {
		case types.KindChar, types.KindVarChar, types.KindBinary, types.KindVarBinary, types.KindBoolean,
			types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt, types.KindFloat, types.KindDouble:
		default:
			return kerrf(key, "the raw format carries a string, bytes, a boolean or a number, not %s", c)
		}
		switch v := f.opts["endianness"]; v {
		case "", "big-endian", "little-endian":
		default:
			return kerrf(f.prefix+"endianness", "option '%sendianness' is 'big-endian' or 'little-endian', not '%s'", f.prefix, v)
		}
		if v := strings.ToUpper(f.opts["charset"]); v != "" && v != "UTF-8" && v != "UTF8" {
			return kerrf(f.prefix+"charset", "ptfsh's raw format reads and writes UTF-8 only, not '%s'", f.opts["charset"])
		}
	}
	if len(cols) == 0 && f.name != fmtRaw {
		return kerrf(key, "the %s of table '%s' carries no column", part, t.Name)
	}
	for _, k := range []string{"ignore-parse-errors", "fail-on-missing-field", "schema-include", "allow-comments", "disable-quote-character", "encode.decimal-as-plain-number"} {
		if v, ok := f.opts[k]; ok && v != "true" && v != "false" {
			return kerrf(f.prefix+k, "option '%s%s' must be 'true' or 'false', not '%s'", f.prefix, k, v)
		}
	}
	if v, ok := f.opts["timestamp-format.standard"]; ok && v != "SQL" && v != "ISO-8601" {
		return kerrf(f.prefix+"timestamp-format.standard", "option '%stimestamp-format.standard' is 'SQL' or 'ISO-8601', not '%s'", f.prefix, v)
	}
	if f.name == fmtAvroConfl {
		if f.opts["url"] == "" {
			return kerrf(key, "the avro-confluent format needs '%surl' (the schema registry's address)", f.prefix)
		}
		for _, i := range cols {
			if why := avroSupports(t.Schema.Columns[i].Type); why != "" {
				return kerrf(key, "column '%s': %s", t.Schema.Columns[i].Name, why)
			}
		}
	}
	return nil
}
