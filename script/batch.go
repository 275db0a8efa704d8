package script

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"

	"github.com/dop251/goja"
	"github.com/ptfsh/ptfsh/runtime/ptf"
)

// Batches. goja treats a call from Go with no JavaScript frame under it as
// a top-level call: when it returns, goja runs the promise jobs it queued
// and drops the runtime's value stack, which the next call allocates
// again, frame by frame (a third of all the bytes a keyed count
// allocates, and about a tenth of its CPU). Batch keeps one JavaScript
// frame (batchSrc, which calls a native pump) under a run of the
// operator's steps, so that their calls of eval and onTimer are nested
// calls: same stack, same call machinery, each still entered and left
// with its limits, its context and its errors as a call alone is.
//
// A nested call cannot run promise jobs: they would wait for the end of
// the batch, when the call that queued them is over. So a function whose
// code can queue them (it names Promise, async, await or then) is never
// batched; one that queues a job anyway, by code that names none of them
// (globalThis["Pro" + "mise"]), stops its statement with an error that
// says so, and its jobs are dropped, not run late.

const batchSrc = "(function (pump) { return pump(); })"

// batchFile names the batch frame in goja's stacks; callError leaves it
// out of a function's stack trace.
const batchFile = "<ptfsh batch>"

// mayQueueJobs matches code that can queue promise jobs.
var mayQueueJobs = regexp.MustCompile(`\b(?:Promise|async|await|then)\b`)

// errJobInBatch is the error of a call that queued a promise job inside a
// batch.
var errJobInBatch = errors.New("the function queued a promise job through code that names no Promise, async, await or then, " +
	"so ptfsh ran it in a batch, where the job cannot run after its call; write Promise, async or await in the function's own source")

// batcher is a realm's batch frame and its state.
type batcher struct {
	// con holds the console output of the batch's calls while capture is
	// set, for the operator to print before each call's rows (TakeConsole).
	con     bytes.Buffer
	capture bool
	frame   goja.Callable // batchSrc, compiled once
	pump    goja.Value    // the native function the frame calls
	fn      func() error  // the steps of the batch running now
	err     error         // their error
	active  bool          // a batch is running in this realm
	jobs    bool          // a promise job was queued inside it
	// noJobs: a call that may queue no promise job runs at the top level
	// (a scalar function's, scalar.go): a job it queues stops it at once.
	noJobs bool
}

// tracker notes a promise job queued inside a batch (goja calls Grab when
// it queues a reaction job).
type jobTracker struct{ rt *realm }

func (t jobTracker) Grab() any {
	b := &t.rt.batch
	if b.active {
		b.jobs = true
	}
	if b.noJobs {
		// The interrupt unwinds the call, and goja drops its jobs.
		t.rt.interrupt(fmt.Errorf("%w: %v", ptf.ErrLimit, errJobInScalar))
	}
	return nil
}
func (jobTracker) Resumed(any) {}
func (jobTracker) Exited()     {}

// initBatch compiles the realm's batch frame, and rethrow.
func (rt *realm) initBatch() {
	rv, err := rt.vm.RunScript(batchFile, "(function (e) { throw e; })")
	if err != nil {
		panic(fmt.Sprintf("script: rethrow does not compile: %v", err))
	}
	rt.rethrow, _ = goja.AssertFunction(rv)
	v, err := rt.vm.RunScript(batchFile, batchSrc)
	if err != nil {
		panic(fmt.Sprintf("script: the batch frame does not compile: %v", err))
	}
	rt.batch.frame, _ = goja.AssertFunction(v)
	b := &rt.batch
	rt.batch.pump = rt.vm.ToValue(func(goja.FunctionCall) goja.Value {
		b.err = b.fn()
		if b.jobs {
			// Stop before goja runs the queued jobs outside any call: the
			// interrupt unwinds the frame and goja drops them.
			rt.vm.Interrupt(interruptValue{fmt.Errorf("%w: %v", ptf.ErrLimit, errJobInBatch)})
		}
		return goja.Undefined()
	})
	rt.vm.SetAsyncContextTracker(jobTracker{rt})
}

// Batch implements [ptf.Batcher]: fn, the operator's steps, runs inside one
// JavaScript frame, so that the calls it makes are nested calls. A
// function that may queue promise jobs, or a batch inside another of the
// same realm, runs fn as it is.
func (in *instance) Batch(fn func() error) error { return in.batchCalls(fn, true) }

// batchCalls is Batch; capture keeps the console output of the calls for
// TakeConsole (an isolated instance keeps its own).
func (in *instance) batchCalls(fn func() error, capture bool) error {
	rt := in.e
	b := &rt.batch
	if in.d.jobs || b.active || b.frame == nil {
		return fn()
	}
	b.fn, b.err, b.active, b.jobs, b.capture = fn, nil, true, false, capture
	// The frame and the pump take two of the call depth: the function
	// keeps all of SET 'ptf.max-call-depth'.
	rt.apply()
	rt.vm.SetMaxCallStackSize(rt.maxDepth + 2)
	_, err := b.frame(goja.Undefined(), b.pump)
	rt.vm.SetMaxCallStackSize(rt.maxDepth)
	ferr := b.err
	jobs := b.jobs
	b.fn, b.err, b.active, b.jobs, b.capture = nil, nil, false, false, false
	rt.vm.ClearInterrupt()
	if b.con.Len() > 0 { // printed where no operator took it: print it now
		in.ReplayConsole(b.con.Bytes())
		b.con.Reset()
	}
	switch {
	case ferr != nil:
		return ferr
	case jobs:
		return &Error{Func: in.d.name, Msg: errJobInBatch.Error(), Err: ptf.ErrLimit}
	case err != nil:
		return rt.callError(in.d.name, err)
	}
	return nil
}

// TakeConsole returns (and forgets) what the calls of the running batch
// printed since it was last taken: the operator prints it before the rows
// of the call that printed it (ReplayConsole), as when calls run one at a
// time.
func (in *instance) TakeConsole() []byte {
	b := &in.e.batch
	if b.con.Len() == 0 {
		return nil
	}
	out := bytes.Clone(b.con.Bytes())
	b.con.Reset()
	return out
}

// ReplayConsole prints console output that TakeConsole took.
func (in *instance) ReplayConsole(b []byte) error {
	if len(b) == 0 || in.e.opts.Console == nil {
		return nil
	}
	_, err := in.e.opts.Console.Write(b)
	return err
}
