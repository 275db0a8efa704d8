package script

import (
	"bytes"
	"fmt"
	"io"

	"github.com/ptfsh/ptfsh/runtime/ptf"
)

// isolated is an instance with a JavaScript runtime of its own: a child
// Engine that loaded the same source with the parent's current settings.
// The runtime runs isolated instances of one call on several goroutines
// (--parallelism), one goroutine per instance.
//
// Console output of the child goes to a buffer; the runtime takes it after
// each call (TakeConsole, on the worker's goroutine) and replays it on the
// parent's console in input order (ReplayConsole, on the statement's
// goroutine), so that it reads as at parallelism 1.
type isolated struct {
	*instance
	child  *Engine
	parent *Engine
	buf    *bytes.Buffer
}

func (e *Engine) newIsolated(name, file, src string, spec ptf.CallSpec) (ptf.PTF, error) {
	opts := e.opts
	e.mu.Lock()
	opts.EvalTimeout, opts.MaxMemory = e.timeout, e.maxMemory
	e.mu.Unlock()
	opts.MaxRowsPerCall, opts.MaxCallDepth, opts.Seed = e.maxRows, e.maxDepth, e.seed
	opts.MaxSourceSize, opts.InlineImportDir = e.maxSource, e.inlineDir
	opts.NoCompile = e.noCompile
	var buf *bytes.Buffer
	if opts.Console != nil {
		buf = &bytes.Buffer{}
		opts.Console = buf
	}
	child := NewEngine(opts)
	// The same program names as the parent's, so that stack traces and
	// error positions read the same.
	for k, v := range e.progs {
		child.progs[k] = v
	}
	def, err := child.Load(name, file, src)
	if err != nil {
		child.Close()
		return nil, fmt.Errorf("loading an isolated instance: %w", err)
	}
	if buf != nil {
		buf.Reset() // what the top level printed was printed by the first load
	}
	d := child.decls[def]
	in, err := d.rt.newInstance(d, spec)
	if err != nil {
		child.Close()
		return nil, err
	}
	return &isolated{instance: in, child: child, parent: e, buf: buf}, nil
}

// Close releases the instance and stops its Engine.
func (i *isolated) Close() error {
	err := i.instance.Close()
	i.child.Close()
	return err
}

// Batch implements [ptf.Batcher]: the instance keeps its console output
// itself (TakeConsole).
func (i *isolated) Batch(fn func() error) error { return i.instance.batchCalls(fn, false) }

// TakeConsole returns (and forgets) what the instance printed since the
// last call.
func (i *isolated) TakeConsole() []byte {
	if i.buf == nil || i.buf.Len() == 0 {
		return nil
	}
	b := bytes.Clone(i.buf.Bytes())
	i.buf.Reset()
	return b
}

// ReplayConsole writes console output taken by TakeConsole to the parent
// Engine's console.
func (i *isolated) ReplayConsole(b []byte) error {
	if len(b) == 0 || i.parent.opts.Console == nil {
		return nil
	}
	_, err := io.Copy(i.parent.opts.Console, bytes.NewReader(b))
	return err
}
