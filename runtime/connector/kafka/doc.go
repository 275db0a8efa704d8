// Package kafka is ptfsh's Kafka client: the one package that speaks to
// brokers and schema registries. It keeps franz-go (kgo, kadm, sr) behind
// a few small types, so that the connector reads and writes plain records
// and the rest of ptfsh never sees the client library.
//
// # Types
//
// A Client is a connection to one cluster (properties.bootstrap.servers):
// it lists topics and partitions, looks offsets up (earliest, latest, by
// timestamp, a consumer group's) and commits a group's offsets. A Reader
// fetches the records of chosen partitions from chosen offsets, in offset
// order within a partition; a Writer produces records, at least once or in
// transactions. A Registry is a Confluent schema registry client, and
// AvroSchema encodes and decodes Avro's binary form.
//
// # Time-outs
//
// Every call takes a context; a Client made by Dial answers within
// seconds when no broker can be reached (DialTimeout), with an error that
// names the servers and says why, never a hang.
//
// # Goroutines
//
// A Client, a Reader and a Writer are each used by one goroutine at a
// time; the client library runs goroutines of its own, which Close ends.
package kafka
