package kafka

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/twmb/avro"
	"github.com/twmb/franz-go/pkg/sr"
)

// AvroSchema is a parsed Avro schema: it encodes and decodes Avro's
// binary form. Decoded values are Go's natural types: int32 and int64,
// float32 and float64, string, []byte, bool, nil, []any for arrays,
// map[string]any for maps and records, time.Time for dates and
// timestamps, time.Duration for times of day, *big.Rat for decimals.
type AvroSchema struct {
	s *avro.Schema
}

// ParseAvro parses a schema in Avro's JSON form.
func ParseAvro(text string) (*AvroSchema, error) {
	s, err := avro.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("not an Avro schema: %w", err)
	}
	return &AvroSchema{s: s}, nil
}

// String returns the schema's JSON text.
func (a *AvroSchema) String() string { return a.s.String() }

// Decode decodes one value that takes all of b.
func (a *AvroSchema) Decode(b []byte) (any, error) {
	var v any
	rest, err := a.s.Decode(b, &v)
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 {
		return nil, fmt.Errorf("%d bytes after the Avro value", len(rest))
	}
	return v, nil
}

// Encode appends the binary form of v to dst.
func (a *AvroSchema) Encode(dst []byte, v any) ([]byte, error) {
	return a.s.AppendEncode(dst, v)
}

// Registry is a Confluent schema registry: it registers schemas under
// subjects and finds them by id, keeping what it found. Its methods may
// be called from several goroutines.
type Registry struct {
	url string
	cl  *sr.Client
	mu  sync.Mutex
	ids map[int]*AvroSchema
}

// NewRegistry returns a client of the registry at url.
func NewRegistry(url string) (*Registry, error) {
	cl, err := sr.NewClient(sr.URLs(url), sr.HTTPClient(&http.Client{Timeout: DialTimeout}))
	if err != nil {
		return nil, fmt.Errorf("schema registry %s: %w", url, err)
	}
	return &Registry{url: url, cl: cl, ids: map[int]*AvroSchema{}}, nil
}

// URL is the registry's address.
func (r *Registry) URL() string { return r.url }

// ErrNoSchema is the error of a schema id the registry does not have.
var ErrNoSchema = errors.New("no such schema")

// Register registers an Avro schema under subject (or finds it there) and
// returns its id.
func (r *Registry) Register(ctx context.Context, subject string, a *AvroSchema) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*DialTimeout)
	defer cancel()
	id, err := r.cl.RegisterSchema(ctx, subject, sr.Schema{Schema: a.String(), Type: sr.TypeAvro}, -1, -1)
	if err != nil {
		return 0, fmt.Errorf("registering a schema under subject '%s' in the schema registry %s: %w", subject, r.url, err)
	}
	r.mu.Lock()
	r.ids[id] = a
	r.mu.Unlock()
	return id, nil
}

// Latest returns the latest schema of a subject.
func (r *Registry) Latest(ctx context.Context, subject string) (*AvroSchema, int, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*DialTimeout)
	defer cancel()
	ss, err := r.cl.SchemaByVersion(ctx, subject, -1)
	if err != nil {
		var re *sr.ResponseError
		if errors.As(err, &re) && re.ErrorCode/100 == 404 {
			return nil, 0, fmt.Errorf("subject '%s': %w in the schema registry %s", subject, ErrNoSchema, r.url)
		}
		return nil, 0, fmt.Errorf("schema registry %s: %w", r.url, err)
	}
	a, err := ParseAvro(ss.Schema.Schema)
	if err != nil {
		return nil, 0, fmt.Errorf("subject '%s': %w", subject, err)
	}
	return a, ss.ID, nil
}

// ByID returns the schema of an id.
func (r *Registry) ByID(ctx context.Context, id int) (*AvroSchema, error) {
	r.mu.Lock()
	a, ok := r.ids[id]
	r.mu.Unlock()
	if ok {
		return a, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*DialTimeout)
	defer cancel()
	s, err := r.cl.SchemaByID(ctx, id)
	if err != nil {
		var re *sr.ResponseError
		if errors.As(err, &re) && re.ErrorCode/100 == 404 {
			return nil, fmt.Errorf("schema id %d: %w in the schema registry %s", id, ErrNoSchema, r.url)
		}
		return nil, fmt.Errorf("schema registry %s: %w", r.url, err)
	}
	if s.Type != sr.TypeAvro && s.Type != 0 {
		return nil, fmt.Errorf("schema id %d is a %s schema, not Avro", id, s.Type)
	}
	if a, err = ParseAvro(s.Schema); err != nil {
		return nil, fmt.Errorf("schema id %d: %w", id, err)
	}
	r.mu.Lock()
	r.ids[id] = a
	r.mu.Unlock()
	return a, nil
}

// ConfluentHeader is the 5 bytes before an Avro value in Confluent's wire
// format: a zero magic byte and the schema id, big-endian.
func ConfluentHeader(dst []byte, id int) []byte {
	dst = append(dst, 0)
	return binary.BigEndian.AppendUint32(dst, uint32(id))
}

// SplitConfluent splits a record in Confluent's wire format into its
// schema id and its Avro bytes.
func SplitConfluent(b []byte) (int, []byte, error) {
	if len(b) < 5 {
		return 0, nil, fmt.Errorf("%d bytes: too short for Confluent's wire format (a magic byte and a 4-byte schema id first)", len(b))
	}
	if b[0] != 0 {
		return 0, nil, fmt.Errorf("unknown magic byte %d (Confluent's wire format starts with 0)", b[0])
	}
	return int(binary.BigEndian.Uint32(b[1:5])), b[5:], nil
}
