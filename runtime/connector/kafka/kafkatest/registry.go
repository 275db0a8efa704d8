package kafkatest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Registry is an in-process schema registry that follows the REST API of
// Confluent's Schema Registry as documented (the endpoints ptfsh and
// Flink's avro-confluent format use): POST /subjects/{subject}/versions
// registers a schema (the same text again keeps its id), POST
// /subjects/{subject} looks one up, GET /subjects/{subject}/versions/{n or
// latest}, GET /schemas/ids/{id} and GET /subjects read them. Errors
// answer with the registry's codes: 40401 subject not found, 40403 schema
// not found. No registry installs from the package registries this
// project reaches, so the tests use this one.
type Registry struct {
	srv *httptest.Server

	mu       sync.Mutex
	schemas  []string         // by id - 1
	subjects map[string][]int // subject -> ids by version
}

// StartRegistry starts a registry; t's cleanup stops it.
func StartRegistry(t testing.TB) *Registry {
	r := &Registry{subjects: map[string][]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

// URL is the registry's address, as 'avro-confluent.url' takes it.
func (r *Registry) URL() string { return r.srv.URL }

type regSchema struct {
	Subject    string `json:"subject,omitempty"`
	Version    int    `json:"version,omitempty"`
	ID         int    `json:"id,omitempty"`
	Schema     string `json:"schema"`
	SchemaType string `json:"schemaType,omitempty"`
}

func fail(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error_code": code, "message": msg})
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	json.NewEncoder(w).Encode(v)
}

func (r *Registry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	switch {
	case req.Method == http.MethodGet && len(parts) == 1 && parts[0] == "subjects":
		names := make([]string, 0, len(r.subjects))
		for s := range r.subjects {
			names = append(names, s)
		}
		sort.Strings(names)
		reply(w, names)
	case req.Method == http.MethodGet && len(parts) == 3 && parts[0] == "schemas" && parts[1] == "ids":
		id, err := strconv.Atoi(parts[2])
		if err != nil || id < 1 || id > len(r.schemas) {
			fail(w, http.StatusNotFound, 40403, "Schema "+parts[2]+" not found")
			return
		}
		reply(w, regSchema{Schema: r.schemas[id-1]})
	case len(parts) >= 2 && parts[0] == "subjects":
		subject := parts[1]
		switch {
		case req.Method == http.MethodPost && len(parts) == 3 && parts[2] == "versions":
			var in regSchema
			if err := json.NewDecoder(req.Body).Decode(&in); err != nil || in.Schema == "" {
				fail(w, http.StatusUnprocessableEntity, 42201, "Invalid schema")
				return
			}
			if in.SchemaType != "" && in.SchemaType != "AVRO" {
				fail(w, http.StatusUnprocessableEntity, 42201, "Invalid schema type "+in.SchemaType)
				return
			}
			reply(w, map[string]int{"id": r.register(subject, in.Schema)})
		case req.Method == http.MethodPost && len(parts) == 2:
			var in regSchema
			if err := json.NewDecoder(req.Body).Decode(&in); err != nil {
				fail(w, http.StatusUnprocessableEntity, 42201, "Invalid schema")
				return
			}
			ids, ok := r.subjects[subject]
			if !ok {
				fail(w, http.StatusNotFound, 40401, "Subject '"+subject+"' not found.")
				return
			}
			for v, id := range ids {
				if r.schemas[id-1] == in.Schema {
					reply(w, regSchema{Subject: subject, Version: v + 1, ID: id, Schema: in.Schema})
					return
				}
			}
			fail(w, http.StatusNotFound, 40403, "Schema not found")
		case req.Method == http.MethodGet && len(parts) == 4 && parts[2] == "versions":
			ids, ok := r.subjects[subject]
			if !ok {
				fail(w, http.StatusNotFound, 40401, "Subject '"+subject+"' not found.")
				return
			}
			v := len(ids)
			if parts[3] != "latest" && parts[3] != "-1" {
				n, err := strconv.Atoi(parts[3])
				if err != nil || n < 1 || n > len(ids) {
					fail(w, http.StatusNotFound, 40402, "Version "+parts[3]+" not found.")
					return
				}
				v = n
			}
			id := ids[v-1]
			reply(w, regSchema{Subject: subject, Version: v, ID: id, Schema: r.schemas[id-1]})
		default:
			fail(w, http.StatusNotFound, 404, "HTTP 404 Not Found")
		}
	default:
		fail(w, http.StatusNotFound, 404, "HTTP 404 Not Found")
	}
}

// register adds a schema under subject, or finds it, and returns its id:
// the same text has one id in every subject, as in the registry.
func (r *Registry) register(subject, schema string) int {
	id := 0
	for i, s := range r.schemas {
		if s == schema {
			id = i + 1
		}
	}
	if id == 0 {
		r.schemas = append(r.schemas, schema)
		id = len(r.schemas)
	}
	for _, have := range r.subjects[subject] {
		if have == id {
			return id
		}
	}
	r.subjects[subject] = append(r.subjects[subject], id)
	return id
}
