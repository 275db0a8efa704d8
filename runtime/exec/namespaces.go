package exec

import (
	"strings"

	"github.com/ptfsh/ptfsh/state"
)

// The store's namespaces, all of them: what ptfsh keeps in a state file
// (see the state package for how a namespace holds keys). Per function uid:
//
//	state/UID/NAME     value state entry NAME, by partition key: its generations
//	                   (NAME~N, packed, and their list NAME~meta; runtime/exec/opstate),
//	                   or, in a file of an earlier build, the keys themselves
//	spill/UID/NAME     value state spilled by an earlier build since its last checkpoint
//	list/UID/NAME      ListView entries, by partition key and index
//	map/UID/NAME       MapView entries, by partition key and map key
//	timers/UID         timers, by partition key
//	sortbuf/UID/ARG    ORDER BY buffers of table argument ARG
//	normalize/ID       the last row per key of an updating input
//
// And for the whole file:
//
//	meta               per uid: its state schema (schema/UID), whether its
//	                   last statement finished (finished/UID), and the event
//	                   time of a statement still running (wm/UID)
//	sources            how far each file source read (runtime/connector)
//	sinks              how long each file sink's file was at the checkpoint

// MetaNamespace holds what the runtime records about each uid.
const MetaNamespace = "meta"

// FinishedKey marks a uid whose last statement read its input to the end.
func FinishedKey(uid string) []byte { return []byte("finished/" + uid) }

// DropUID removes every state entry and timer of a uid.
func DropUID(tx state.Tx, uid string) error {
	names, err := tx.Namespaces()
	if err != nil {
		return err
	}
	for _, ns := range names {
		if strings.HasPrefix(ns, "state/"+uid+"/") || ns == TimerNamespace(uid) || isViewNamespace(ns, uid) ||
			strings.HasPrefix(ns, normalizeNamespace(uid+"/")) || strings.HasPrefix(ns, SortBufferNamespace(uid, "")) {
			if err := tx.DeleteNamespace(ns); err != nil {
				return err
			}
		}
	}
	if err := tx.Delete(MetaNamespace, WatermarkKey(uid)); err != nil {
		return err
	}
	return tx.Delete(MetaNamespace, SchemaKey(uid))
}

// StateNamespace is where entry name of uid lives in the store.
func StateNamespace(uid, name string) string { return "state/" + uid + "/" + name }

func SpillNamespace(uid, name string) string { return "spill/" + uid + "/" + name }

// TimerNamespace is where the timers of uid live in the store.
func TimerNamespace(uid string) string { return "timers/" + uid }

func ListNamespace(uid, name string) string { return "list/" + uid + "/" + name }

func MapNamespace(uid, name string) string { return "map/" + uid + "/" + name }

// isViewNamespace reports whether ns holds list or map state of uid.
func isViewNamespace(ns, uid string) bool {
	return strings.HasPrefix(ns, "list/"+uid+"/") || strings.HasPrefix(ns, "map/"+uid+"/")
}

func SortBufferNamespace(uid, arg string) string { return "sortbuf/" + uid + "/" + arg }

func normalizeNamespace(id string) string { return "normalize/" + id }

func SchemaKey(uid string) []byte { return []byte("schema/" + uid) }

// SourceNamespace holds the checkpointed positions of file sources.
const SourceNamespace = "sources"

// SinkNamespace holds the checkpointed lengths of file sinks.
const SinkNamespace = "sinks"

// WatermarkKey holds the watermarks of a uid's operator while its statement runs.
func WatermarkKey(uid string) []byte { return []byte("wm/" + uid) }
