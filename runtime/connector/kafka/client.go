package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DialTimeout bounds how long a call waits for an unreachable broker
// before it says so.
const DialTimeout = 5 * time.Second

// Config says how to reach a cluster.
type Config struct {
	// Servers are the bootstrap servers, host:port.
	Servers []string
	// ClientID names ptfsh to the brokers (client.id); empty: "ptfsh".
	ClientID string
	// ReadCommitted reads only committed records of transactions
	// (isolation.level = read_committed).
	ReadCommitted bool
	// Timeout overrides DialTimeout when positive.
	Timeout time.Duration
	// Auth secures the connections (SASL, TLS); the zero Auth is
	// PLAINTEXT.
	Auth Auth
}

func (c Config) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DialTimeout
}

// opts are the client options every client of c shares.
func (c Config) opts() []kgo.Opt {
	id := c.ClientID
	if id == "" {
		id = "ptfsh"
	}
	return append([]kgo.Opt{
		kgo.SeedBrokers(c.Servers...),
		kgo.ClientID(id),
		kgo.DialTimeout(c.timeout()),
		kgo.RetryTimeout(c.timeout()),
		kgo.MetadataMinAge(100 * time.Millisecond),
	}, c.Auth.opts()...)
}

// Client is a connection to one cluster for metadata and offsets. Close
// releases it.
type Client struct {
	cfg Config
	cl  *kgo.Client
	adm *kadm.Client
}

// TP is a topic's partition.
type TP struct {
	Topic     string
	Partition int32
}

func (tp TP) String() string { return tp.Topic + "/" + strconv.Itoa(int(tp.Partition)) }

// Dial connects to the cluster of cfg and checks that a broker answers.
func Dial(ctx context.Context, cfg Config) (*Client, error) {
	if len(cfg.Servers) == 0 {
		return nil, errors.New("no bootstrap servers given")
	}
	cl, err := kgo.NewClient(cfg.opts()...)
	if err != nil {
		return nil, fmt.Errorf("kafka servers %s: %w", strings.Join(cfg.Servers, ","), err)
	}
	c := &Client{cfg: cfg, cl: cl, adm: kadm.NewClient(cl)}
	pctx, cancel := context.WithTimeout(ctx, cfg.timeout())
	defer cancel()
	if err := cl.Ping(pctx); err != nil {
		cl.Close()
		return nil, c.unreachable(err)
	}
	return c, nil
}

// unreachable words a failure to reach the brokers.
func (c *Client) unreachable(err error) error {
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return fmt.Errorf("kafka brokers %s: %w", strings.Join(c.cfg.Servers, ","), err) // an answer, not a failure to reach them
	}
	if c.cfg.Auth.Mechanism != "" && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
		// A broker closes the connection on a failed SASL handshake.
		return fmt.Errorf("the Kafka brokers %s closed the connection during SASL %s authentication as '%s' (%v): check the user and password in 'properties.sasl.jaas.config' and 'properties.sasl.mechanism'", strings.Join(c.cfg.Servers, ","), c.cfg.Auth.Mechanism, c.cfg.Auth.User, err)
	}
	if c.cfg.Auth.Mechanism == "" && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)) {
		// What closes the connection at the first request is not a
		// broker's plain listener: a KRaft controller's port, a listener
		// that wants SASL or TLS, another service.
		return fmt.Errorf("the server at %s (properties.bootstrap.servers) closed the connection at the first request: check that it is a Kafka broker's listener, not a controller's port or another service, and whether that listener needs SASL or TLS ('properties.security.protocol')", strings.Join(c.cfg.Servers, ","))
	}
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within %s", c.cfg.timeout())
	}
	return fmt.Errorf("cannot reach the Kafka brokers %s (properties.bootstrap.servers): %v; check that a broker runs there and listens on that address", strings.Join(c.cfg.Servers, ","), err)
}

// Servers are the bootstrap servers the client was made with.
func (c *Client) Servers() []string { return c.cfg.Servers }

// Close releases the client.
func (c *Client) Close() { c.cl.Close() }

// ctx bounds a metadata call.
func (c *Client) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.cfg.timeout())
}

// Topic is a topic as SHOW TOPICS lists it.
type Topic struct {
	Name       string
	Partitions int
	Internal   bool
}

// Topics lists the cluster's topics, sorted by name.
func (c *Client) Topics(ctx context.Context) ([]Topic, error) {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	ds, err := c.adm.ListTopicsWithInternal(ctx)
	if err != nil {
		return nil, c.unreachable(err)
	}
	var out []Topic
	for _, name := range ds.Names() {
		d := ds[name]
		out = append(out, Topic{Name: name, Partitions: len(d.Partitions), Internal: d.IsInternal})
	}
	return out, nil
}

// ErrNoTopic is the error of a topic the cluster does not have.
var ErrNoTopic = errors.New("no such topic")

// Partitions returns the partitions of each topic, in order. A topic the
// cluster lacks is an error that wraps ErrNoTopic.
func (c *Client) Partitions(ctx context.Context, topics []string) ([]TP, error) {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	ds, err := c.adm.ListTopics(ctx, topics...)
	if err != nil {
		return nil, c.unreachable(err)
	}
	var out []TP
	for _, t := range topics {
		d, ok := ds[t]
		if !ok || errors.Is(d.Err, kerr.UnknownTopicOrPartition) {
			return nil, fmt.Errorf("topic '%s': %w on the brokers %s", t, ErrNoTopic, strings.Join(c.cfg.Servers, ","))
		}
		if d.Err != nil {
			return nil, fmt.Errorf("topic '%s': %w", t, d.Err)
		}
		for _, p := range d.Partitions.Numbers() {
			out = append(out, TP{t, p})
		}
	}
	sortTPs(out)
	return out, nil
}

// MatchTopics returns the topics whose names match, sorted (Flink's
// topic-pattern).
func (c *Client) MatchTopics(ctx context.Context, match func(string) bool) ([]string, error) {
	ts, err := c.Topics(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range ts {
		if !t.Internal && match(t.Name) {
			out = append(out, t.Name)
		}
	}
	return out, nil
}

func sortTPs(tps []TP) {
	sort.Slice(tps, func(i, j int) bool {
		if tps[i].Topic != tps[j].Topic {
			return tps[i].Topic < tps[j].Topic
		}
		return tps[i].Partition < tps[j].Partition
	})
}

// Where an offset look-up points.
const (
	Earliest = -2 // the first offset kept
	Latest   = -1 // the offset after the last record (committed, when reading committed)
)

// Offsets looks up an offset for each partition: Earliest, Latest, or
// the first offset whose timestamp is at or after at (epoch ms, at >= 0;
// Latest where none is).
func (c *Client) Offsets(ctx context.Context, tps []TP, at int64) (map[TP]int64, error) {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	topics := topicsOf(tps)
	var l kadm.ListedOffsets
	var err error
	switch {
	case at == Earliest:
		l, err = c.adm.ListStartOffsets(ctx, topics...)
	case at == Latest && c.cfg.ReadCommitted:
		l, err = c.adm.ListCommittedOffsets(ctx, topics...)
	case at == Latest:
		l, err = c.adm.ListEndOffsets(ctx, topics...)
	default:
		l, err = c.adm.ListOffsetsAfterMilli(ctx, at, topics...)
	}
	if err != nil {
		return nil, c.unreachable(err)
	}
	out := map[TP]int64{}
	var ends map[TP]int64
	for _, tp := range tps {
		o, ok := l.Lookup(tp.Topic, tp.Partition)
		if !ok {
			return nil, fmt.Errorf("partition %s: no offset listed", tp)
		}
		if o.Err != nil {
			return nil, fmt.Errorf("partition %s: %w", tp, o.Err)
		}
		if o.Offset < 0 { // a time after every record: the end
			if ends == nil {
				if ends, err = c.Offsets(ctx, tps, Latest); err != nil {
					return nil, err
				}
			}
			o.Offset = ends[tp]
		}
		out[tp] = o.Offset
	}
	return out, nil
}

func topicsOf(tps []TP) []string {
	var topics []string
	seen := map[string]bool{}
	for _, tp := range tps {
		if !seen[tp.Topic] {
			seen[tp.Topic] = true
			topics = append(topics, tp.Topic)
		}
	}
	return topics
}

// GroupOffsets returns the committed offsets of a consumer group for the
// partitions; a partition without one is left out.
func (c *Client) GroupOffsets(ctx context.Context, group string, tps []TP) (map[TP]int64, error) {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	rs, err := c.adm.FetchOffsets(ctx, group)
	if errors.Is(err, kerr.GroupIDNotFound) {
		return map[TP]int64{}, nil // a group that never committed
	}
	if err != nil {
		return nil, c.unreachable(err)
	}
	if err := rs.Error(); err != nil {
		return nil, fmt.Errorf("group '%s': %w", group, err)
	}
	out := map[TP]int64{}
	for _, tp := range tps {
		if r, ok := rs.Lookup(tp.Topic, tp.Partition); ok && r.Err == nil && r.At >= 0 {
			out[tp] = r.At
		}
	}
	return out, nil
}

// CommitGroupOffsets commits offsets (the next offset to read, Kafka's
// convention) for a consumer group.
func (c *Client) CommitGroupOffsets(ctx context.Context, group string, offsets map[TP]int64) error {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	os := kadm.Offsets{}
	for tp, o := range offsets {
		os.AddOffset(tp.Topic, tp.Partition, o, -1)
	}
	rs, err := c.adm.CommitOffsets(ctx, group, os)
	if err != nil {
		return c.unreachable(err)
	}
	if err := rs.Error(); err != nil {
		return fmt.Errorf("committing the offsets of group '%s': %w", group, err)
	}
	return nil
}

// ResumeCommit commits the transaction of transactional id txnID that
// producer pid, epoch left prepared (flushed, not ended) in another
// process: Kafka's EndTxn with the recorded producer id and epoch, as
// Flink's sink commits a transaction restored from a checkpoint. A
// transaction committed already counts as committed; one the broker
// aborted (its timeout passed) is an error.
func (c *Client) ResumeCommit(ctx context.Context, txnID string, pid int64, epoch int16) error {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	req := kmsg.NewPtrEndTxnRequest()
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = txnID, pid, epoch, true
	resp, err := req.RequestWith(ctx, c.cl)
	if err != nil {
		return c.unreachable(err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return fmt.Errorf("committing the transaction '%s' of the last checkpoint: %w", txnID, err)
	}
	return nil
}

// DeleteTopics deletes topics and waits until the cluster has none of
// them (so that they may be made again); the tests use it.
func (c *Client) DeleteTopics(ctx context.Context, topics ...string) error {
	ctx, cancel := context.WithTimeout(ctx, 12*c.cfg.timeout())
	defer cancel()
	rs, err := c.adm.DeleteTopics(ctx, topics...)
	if err != nil {
		return c.unreachable(err)
	}
	if err := rs.Error(); err != nil {
		return err
	}
	for {
		ds, err := c.adm.ListTopics(ctx, topics...)
		if err != nil {
			return c.unreachable(err)
		}
		left := 0
		for _, d := range ds {
			if d.Err == nil {
				left++
			}
		}
		if left == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("topics %v still there", topics)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// CreateTopic makes a topic with the given partitions (replication 1);
// the tests and the examples use it.
func (c *Client) CreateTopic(ctx context.Context, name string, partitions int32) error {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	r, err := c.adm.CreateTopic(ctx, partitions, 1, nil, name)
	if err != nil {
		return c.unreachable(err)
	}
	if r.Err != nil && !errors.Is(r.Err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("creating topic '%s': %w", name, r.Err)
	}
	return nil
}

// leaders looks up a topic's id and the leader of each of its partitions
// (-1: none now).
func (c *Client) leaders(ctx context.Context, name string) (id [16]byte, leaders []int32, err error) {
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(name)
	req.Topics = append(req.Topics, rt)
	req.AllowAutoTopicCreation = false
	mctx, cancel := c.ctx(ctx)
	defer cancel()
	resp, err := req.RequestWith(mctx, c.cl)
	if err != nil {
		return id, nil, c.unreachable(err)
	}
	for _, mt := range resp.Topics {
		if mt.Topic == nil || *mt.Topic != name {
			continue
		}
		if err := kerr.ErrorForCode(mt.ErrorCode); err != nil {
			if errors.Is(err, kerr.UnknownTopicOrPartition) {
				return id, nil, fmt.Errorf("topic '%s': %w on the brokers %s", name, ErrNoTopic, strings.Join(c.cfg.Servers, ","))
			}
			return id, nil, fmt.Errorf("topic '%s': %w", name, err)
		}
		leaders := make([]int32, len(mt.Partitions))
		for _, p := range mt.Partitions {
			if p.Partition < 0 || int(p.Partition) >= len(leaders) {
				return id, nil, fmt.Errorf("topic '%s': the brokers list partition %d of %d", name, p.Partition, len(leaders))
			}
			leaders[p.Partition] = p.Leader
		}
		if len(leaders) == 0 {
			return id, nil, fmt.Errorf("topic '%s' has no partitions", name)
		}
		return mt.TopicID, leaders, nil
	}
	return id, nil, fmt.Errorf("topic '%s': %w on the brokers %s", name, ErrNoTopic, strings.Join(c.cfg.Servers, ","))
}

// requestTopic is the entry of a request's topics for the topic named
// name, added (made by add) when the request has none yet: a request
// names each topic once, with its partitions under it. nameOf is an
// entry's topic name. The entry is valid until topics grows.
func requestTopic[T any](topics *[]T, name string, nameOf func(*T) string, add func() T) *T {
	for i := range *topics {
		if nameOf(&(*topics)[i]) == name {
			return &(*topics)[i]
		}
	}
	*topics = append(*topics, add())
	return &(*topics)[len(*topics)-1]
}
