package exec

import "github.com/ptfsh/ptfsh/runtime/types"

// Encoded rows: a stream whose rows go straight to the statement's
// printer may encode them where they are made (a parallel PTF call's
// workers, each on its own core, while the rows are in its cache) and
// hand the printer bytes instead of rows.

// RowEncoder appends the bytes a printer writes for a row to dst. One
// encoder is used by one goroutine at a time; encoders made for the same
// printer may run concurrently.
type RowEncoder interface {
	AppendRow(dst []byte, r types.Row) ([]byte, error)
}

// RowEncoding is a stream that can hand its rows out encoded, as
// EvEncoded events, in the order it would hand them out as rows.
type RowEncoding interface {
	// EncodeRows asks the stream, before its first Next, to encode its
	// rows with encoders that newEncoder makes (one per goroutine that
	// encodes); it reports whether it will. Only the driver asks, for a
	// stream whose rows go to its printer and nowhere else.
	EncodeRows(newEncoder func() RowEncoder) bool
}

// EncodedEvent is an EvEncoded event of rows rows encoded as b. b is the
// stream's: it holds until the stream's next Next.
func EncodedEvent(b []byte, rows int) Event {
	return Event{Kind: EvEncoded, note: &eventNote{enc: b, rows: rows}}
}

// Encoded returns the bytes and the number of rows of an EvEncoded event.
func (ev Event) Encoded() (b []byte, rows int) {
	if ev.note == nil {
		return nil, 0
	}
	return ev.note.enc, ev.note.rows
}
