// ptfsh/patterns — building blocks of stream processing, each a PTF
// declaration made by a function of options:
//
//   import { sessionize } from "ptfsh/patterns";
//   export default sessionize({ gap: "30 min" });
//
// and called with set semantics and on_time:
//
//   SELECT * FROM Sessions(input => TABLE clicks PARTITION BY user_id, on_time => DESCRIPTOR(ts));
//
// Every pattern keeps one value entry of state per key (named after the
// pattern, or options.stateName) and says in its comment which event time
// decides, because a row sees the watermark left by the rows before it,
// not its own: a pattern that compares a row with "now" through the
// watermark decides by arrival order. These decide by the rows' own times
// (tc.time()) and use timers only to emit results and to clean state.
// sessionize, topN and enrich take rows in any order and drop late ones
// as their SQL twins do (SESSION windows, a window Top-N, the event-time
// temporal join); dedup with by: "time" reads rows in event-time order
// as Flink's deduplication does. thresholdWithReset and changeDetection
// need order: call them with ORDER BY (ts), which sorts each key's rows
// and drops the rows that arrive late; a row they still see out of order
// is dropped and counted in their state (outOfOrder), which SHOW STATE
// shows.
//
// A pattern that drops a row says so with ctx.noteDropped(reason), which
// EXPLAIN WHY counts by reason ("why not: ... 3 rows dropped by the
// function (late 2, duplicate 1)") and the trace shows.
//
// Inside another function: every pattern takes options.emit(ctx, out,
// row) to collect its result differently (out is the pattern's output
// object, row the input row or null in onTimer), with options.output the
// type that emit collects, and options.stateName when two patterns share
// one function. The returned declaration's eval and onTimer may then be
// called from the function's own (pass the same state object).
//
// Patterns: dedup, sessionize, absence, thresholdWithReset, changeDetection,
// rateLimit, topN, enrich; helpers for patterns of your own: aggregates
// (columns over a group of rows) and timeOrder (a key's rows in event-time
// order). Types: stdlib/dts/patterns.d.ts, in the
// globals.d.ts that ptfsh init writes and ptfsh check uses.

/** duration reads "30 s", "10 min", "1 hour", "2 days", "500 ms" or a number of milliseconds. */
export function duration(d, what) {
  if (typeof d === "number" && Number.isFinite(d) && d >= 0) return d;
  const m = /^\s*(\d+)\s*(ms|milliseconds?|s|sec|seconds?|min|minutes?|h|hours?|d|days?)\s*$/i.exec(String(d));
  if (!m) throw new Error(`${what}: '${d}' is not a duration; write e.g. '30 s', '10 min', '1 hour' or milliseconds`);
  const unit = m[2].toLowerCase();
  const ms = unit === "ms" || unit.startsWith("milli") ? 1
    : unit === "s" || unit.startsWith("sec") ? 1000
    : unit === "min" || unit.startsWith("minute") ? 60000
    : unit === "h" || unit.startsWith("hour") ? 3600000 : 86400000;
  return Number(m[1]) * ms;
}

// The end of input's watermark (Long.MAX_VALUE) as JS sees it: the
// largest safe integer.
const END = Number.MAX_SAFE_INTEGER;

function opts(o, pattern) {
  if (o === undefined || o === null) o = {};
  if (typeof o !== "object") throw new Error(`${pattern}: options must be an object`);
  return o;
}

function emitter(o) {
  if (o.emit === undefined) return (ctx, out) => ctx.collect(out);
  if (typeof o.emit !== "function") throw new Error("emit must be a function (ctx, out, row)");
  return o.emit;
}

function column(o, name, pattern) {
  const c = o[name];
  if (typeof c !== "string" || c === "") throw new Error(`${pattern}: option '${name}' must name a column of the input`);
  return c;
}

function number(v, what) {
  if (typeof v !== "number" || !Number.isFinite(v)) throw new Error(`${what} must be a number`);
  return v;
}

function rowTime(ctx, pattern) {
  const t = ctx.timeContext().time();
  if (t === null) throw new Error(`${pattern} needs event time: call it with on_time => DESCRIPTOR(<time column>)`);
  return t;
}

function readValue(row, col, pattern) {
  if (!(col in row)) throw new Error(`${pattern}: the input has no column '${col}'`);
  const v = row[col];
  return v === null ? null : Number(v);
}

// fields copies a row's columns into a plain object.
function fields(row) {
  const o = {};
  for (const k of Object.keys(row)) o[k] = row[k];
  return o;
}

const setArgs = (pass) => [{ name: "input", traits: pass ? ["SET_SEMANTIC_TABLE", "PASS_COLUMNS_THROUGH", "REQUIRE_ON_TIME"] : ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }];

function rowOutput(o, pattern, extra) {
  if (o.output !== undefined) return o.output;
  if (o.emit !== undefined) throw new Error(`${pattern}: with emit, say what it collects in option 'output'`);
  throw new Error(`${pattern}: option 'output' must be the ROW type of the columns to emit, besides the PARTITION BY columns: e.g. "ROW<amount INT, ${extra}>" (timers, which clean its state, rule out PASS_COLUMNS_THROUGH)`);
}

/**
 * dedup keeps a key's first row and drops the rows of that key whose time
 * is less than `within` from it (either side), then forgets it.
 *
 * Event time: a row is a duplicate by the distance of its own time to the
 * kept row's time, never by the watermark. A row at exactly kept + within
 * is a new first row. What "first" means is options.by:
 *
 * - by: "arrival" (the default): the first row to arrive, emitted at
 *   once. A timer at kept + within forgets the kept row (it checks that
 *   no later row was kept since). A row before the watermark (time <
 *   watermark) that duplicates no kept row is too late: the row it would
 *   duplicate may have been forgotten, so it is dropped (counted in
 *   dropped while the key has state). With ORDER BY (ts), the first is
 *   the earliest in event time (ties: the first to arrive) and ORDER BY
 *   drops late rows.
 * - by: "time": the earliest in event time, as Flink's deduplication
 *   (ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) = 1) keeps it: rows
 *   wait until the watermark reaches them and are read in time order (ties
 *   in arrival order); a row behind the watermark when it arrives (time <
 *   watermark), or at or before the last time the key has read, is late:
 *   dropped and counted (late). The key keeps the time of its
 *   last kept row instead of forgetting it, as Flink keeps its state.
 *
 * Output: options.output, a ROW type of the input's columns to keep and
 * window_end (when duplicates of this row stop being dropped), filled by
 * name; Flink allows no PASS_COLUMNS_THROUGH with timers.
 */
export function dedup(options) {
  const o = opts(options, "dedup");
  const within = duration(o.within ?? "1 hour", "dedup: within");
  const name = o.stateName ?? "dedup";
  const by = o.by ?? "arrival";
  if (by !== "arrival" && by !== "time") throw new Error(`dedup: option 'by' must be "arrival" or "time", not '${by}'`);
  const emit = emitter(o);
  const output = rowOutput(o, "dedup", "window_end TIMESTAMP_LTZ(3)");
  if (by === "time") {
    const order = timeOrder(name, "dedup", (ctx, s, row, t) => {
      if (s.last !== null && t - s.last < within) {
        s.dropped++;
        ctx.noteDropped("duplicate");
        return;
      }
      s.last = t;
      emit(ctx, { ...row, window_end: new Date(t + within) }, row);
    });
    return {
      output,
      args: setArgs(false),
      state: { [name]: { default: { last: null, dropped: 0, ...order.state } } },
      eval(ctx, state, { input }) {
        const s = state[name];
        const wm = ctx.timeContext().currentWatermark();
        if (wm !== null && rowTime(ctx, "dedup") < wm) {
          // Behind the watermark: Flink's rowtime deduplication drops it.
          s.late++;
          ctx.noteDropped("late");
          return;
        }
        order.eval(ctx, s, input);
      },
      onTimer(ctx, state) { order.onTimer(ctx, state[name]); },
    };
  }
  return {
    output,
    args: setArgs(false),
    state: { [name]: { default: { kept: null, dropped: 0 } } },
    eval(ctx, state, { input }) {
      const s = state[name];
      const t = rowTime(ctx, "dedup");
      if (s.kept !== null && Math.abs(t - s.kept) < within) {
        s.dropped++;
        ctx.noteDropped("duplicate");
        return;
      }
      const wm = ctx.timeContext().currentWatermark();
      if (wm !== null && t < wm) {
        // Too late: a row it duplicates may have been forgotten already
        // (a kept row k is forgotten once the watermark reaches k + within).
        ctx.noteDropped("too late to tell a duplicate");
        if (s.kept !== null) s.dropped++;
        else ctx.clearState(name); // leave no state for a key without one
        return;
      }
      s.kept = t;
      ctx.timeContext().registerOnTime(name, t + within);
      emit(ctx, { ...fields(input), window_end: new Date(t + within) }, input);
    },
    onTimer(ctx, state) {
      if (ctx.currentTimer() !== name) return;
      const s = state[name];
      if (s.kept !== null && s.kept + within <= ctx.timeContext().time()) ctx.clearState(name);
    },
  };
}

/**
 * timeOrder reads a key's rows in event-time order, as Flink's OVER
 * windows do: a row waits (in state: pending) until the watermark reaches
 * its time, and then process(ctx, s, row, t) gets it, rows in time order
 * and ties in arrival order (row is a copy of the input row's columns).
 * A row at or before the last time the key has read (fired) is late:
 * dropped and counted (late). One named timer (the pattern's state name)
 * waits for the earliest pending row. state is the fields it adds to the
 * pattern's state; eval and onTimer take the pattern's state entry.
 */
export function timeOrder(name, pattern, process) {
  return {
    state: { pending: [], fired: null, late: 0, seq: 0 },
    eval(ctx, s, input) {
      const t = rowTime(ctx, pattern);
      if (s.fired !== null && t <= s.fired) {
        s.late++;
        ctx.noteDropped("late");
        return;
      }
      s.pending.push({ t, i: s.seq++, row: fields(input) });
      ctx.timeContext().registerOnTime(name, Math.min(...s.pending.map((p) => p.t)));
    },
    onTimer(ctx, s) {
      if (ctx.currentTimer() !== name) return;
      const now = ctx.timeContext().time();
      const due = s.pending.filter((p) => p.t <= now).sort((a, b) => a.t - b.t || a.i - b.i);
      s.pending = s.pending.filter((p) => p.t > now);
      for (const p of due) {
        s.fired = p.t;
        process(ctx, s, p.row, p.t);
      }
      if (s.pending.length > 0) ctx.timeContext().registerOnTime(name, Math.min(...s.pending.map((p) => p.t)));
    },
  };
}

/**
 * sessionize groups a key's rows into sessions as Flink's SESSION window
 * does: each row opens a window [t, t + gap), and windows that overlap or
 * touch merge, so rows at most `gap` apart share a session (a row at
 * exactly last + gap joins it). A session closes when the watermark
 * reaches its end - 1 (session_end = last row + gap), and emits one row:
 * session_start, session_end, events and the aggregates asked for, with
 * the rowtime end - 1 (Flink's window_time).
 *
 * Event time: membership is decided by the rows' own times, in any
 * order: a row that falls between two open sessions merges them, a row
 * before an open session extends its start. A row that touches no open
 * session and whose own window the watermark has passed (t + gap - 1 at
 * or before the watermark it sees) is late: dropped and counted (late),
 * as SESSION drops it. The end of input closes every open session.
 *
 * options.aggregates adds columns computed over each session's rows:
 * { name: "sum(col)" } with count(*), count(col), sum, min, max or avg
 * of an input column (nulls ignored, as SQL's; null when no row had a
 * value). count is BIGINT and the others DOUBLE unless options.output
 * says otherwise (e.g. "ROW<..., total INT>").
 */
export function sessionize(options) {
  const o = opts(options, "sessionize");
  const gap = duration(o.gap ?? "30 min", "sessionize: gap");
  if (gap <= 0) throw new Error("sessionize: gap must be more than 0");
  const name = o.stateName ?? "session";
  const aggs = aggregates(o.aggregates, "sessionize");
  const emit = emitter(o);
  const extra = aggs.map((a) => `, ${a.name} ${a.type}`).join("");
  return {
    output: o.output ?? `ROW<session_start TIMESTAMP_LTZ(3), session_end TIMESTAMP_LTZ(3), events BIGINT${extra}>`,
    args: setArgs(false),
    state: { [name]: { default: { sessions: [], late: 0 } } },
    eval(ctx, state, { input }) {
      const s = state[name];
      const t = rowTime(ctx, "sessionize");
      let merged = { start: t, end: t + gap, events: 1, acc: aggs.map((a) => a.add(a.empty(), input)) };
      const kept = [];
      let touched = 0;
      for (const x of s.sessions) {
        if (x.start <= merged.end && x.end >= merged.start) {
          merged = mergeSessions(merged, x, aggs);
          touched++;
        } else {
          kept.push(x);
        }
      }
      const wm = ctx.timeContext().currentWatermark();
      if (touched === 0 && wm !== null && merged.end - 1 <= wm) {
        s.late++; // its window had closed: SESSION drops it too
        ctx.noteDropped("late");
        return;
      }
      kept.push(merged);
      kept.sort((a, b) => a.start - b.start);
      s.sessions = kept;
      ctx.timeContext().registerOnTime(name, Math.min(...kept.map((x) => x.end - 1)));
    },
    onTimer(ctx, state) {
      if (ctx.currentTimer() !== name) return;
      const s = state[name];
      const now = ctx.timeContext().time();
      const open = [];
      for (const x of s.sessions) {
        if (x.end - 1 > now) {
          open.push(x);
          continue;
        }
        const out = { session_start: new Date(x.start), session_end: new Date(x.end), events: x.events };
        aggs.forEach((a, i) => { out[a.name] = a.result(x.acc[i]); });
        emit(ctx, out, null);
      }
      s.sessions = open;
      if (open.length > 0) {
        ctx.timeContext().registerOnTime(name, Math.min(...open.map((x) => x.end - 1)));
      } else if (s.late === 0) {
        ctx.clearState(name); // no session open: nothing to keep
      }
    },
  };
}

function mergeSessions(a, b, aggs) {
  return {
    start: Math.min(a.start, b.start),
    end: Math.max(a.end, b.end),
    events: a.events + b.events,
    acc: aggs.map((g, i) => g.merge(a.acc[i], b.acc[i])),
  };
}

/**
 * aggregates reads options.aggregates, { name: "sum(col)", ... }, into
 * accumulators: empty() starts one, add(acc, row) adds a row's value,
 * merge(a, b) joins two (sessions that merge), result(acc) is the value
 * to emit. Accumulators are plain objects, kept in state.
 */
export function aggregates(spec, pattern) {
  if (spec === undefined || spec === null) return [];
  if (typeof spec !== "object" || Array.isArray(spec)) {
    throw new Error(`${pattern}: option 'aggregates' must be an object of column names and functions, e.g. { total: "sum(amount)" }`);
  }
  return Object.entries(spec).map(([out, text]) => {
    const m = /^\s*(count|sum|min|max|avg)\s*\(\s*(\*|[A-Za-z_$][\w$]*)\s*\)\s*$/i.exec(String(text));
    if (!m) {
      throw new Error(`${pattern}: aggregate '${out}': '${text}' is not one of count(*), count(col), sum(col), min(col), max(col), avg(col)`);
    }
    const fn = m[1].toLowerCase();
    const col = m[2];
    if (col === "*" && fn !== "count") throw new Error(`${pattern}: aggregate '${out}': ${fn}(*) takes a column, e.g. ${fn}(amount)`);
    const value = (row) => {
      if (col === "*") return 1;
      if (row === null || row === undefined) return null;
      if (!(col in row)) throw new Error(`${pattern}: aggregate '${out}': the input has no column '${col}'`);
      const v = row[col];
      return v === null || v === undefined ? null : v;
    };
    const less = (a, b) => (a instanceof Date ? a.getTime() : a) < (b instanceof Date ? b.getTime() : b);
    return {
      name: out,
      type: fn === "count" ? "BIGINT" : "DOUBLE",
      empty: () => ({ n: 0, v: null }),
      add(acc, row) {
        const v = value(row);
        if (v === null) return acc;
        switch (fn) {
          case "count": return { n: acc.n + 1, v: null };
          case "sum": case "avg": return { n: acc.n + 1, v: (acc.v ?? 0) + Number(v) };
          case "min": return { n: acc.n + 1, v: acc.v === null || less(v, acc.v) ? v : acc.v };
          default: return { n: acc.n + 1, v: acc.v === null || less(acc.v, v) ? v : acc.v };
        }
      },
      merge(a, b) {
        if (a.n === 0) return b;
        if (b.n === 0) return a;
        switch (fn) {
          case "count": return { n: a.n + b.n, v: null };
          case "sum": case "avg": return { n: a.n + b.n, v: a.v + b.v };
          case "min": return { n: a.n + b.n, v: less(b.v, a.v) ? b.v : a.v };
          default: return { n: a.n + b.n, v: less(a.v, b.v) ? b.v : a.v };
        }
      },
      result(acc) {
        if (fn === "count") return acc.n;
        if (acc.n === 0) return null;
        return fn === "avg" ? acc.v / acc.n : acc.v;
      },
    };
  });
}

/**
 * absence alerts when a key has had no row for `timeout` of event time:
 * one row (last_seen, silent_at = last_seen + timeout) per silence.
 *
 * Event time: the deadline is the latest row time seen + timeout; a late
 * row (earlier than the latest) never moves it back. The alert fires when
 * the watermark passes the deadline, or at a row whose own time is past
 * it (that row sees the watermark of the rows before it, so the timer has
 * not fired yet; moving the timer there would lose the silence). The end of input is not silence: a
 * deadline that only the end of input passes (the watermark jumps to its
 * maximum) alerts only with alertAtEnd: true. State is cleared after an
 * alert.
 */
export function absence(options) {
  const o = opts(options, "absence");
  const timeout = duration(o.timeout ?? "1 hour", "absence: timeout");
  const name = o.stateName ?? "absence";
  const atEnd = o.alertAtEnd === true;
  const emit = emitter(o);
  return {
    output: o.output ?? "ROW<last_seen TIMESTAMP_LTZ(3), silent_at TIMESTAMP_LTZ(3)>",
    args: setArgs(false),
    state: { [name]: { default: { last: null } } },
    eval(ctx, state) {
      const s = state[name];
      const t = rowTime(ctx, "absence");
      if (s.last !== null && t <= s.last) return;
      if (s.last !== null && t - s.last >= timeout) {
        // A silence ended by this row: its timer has not fired, since this
        // row sees the watermark of the rows before it; alert now.
        emit(ctx, { last_seen: new Date(s.last), silent_at: new Date(s.last + timeout) }, null);
      }
      s.last = t;
      ctx.timeContext().registerOnTime(name, t + timeout);
    },
    onTimer(ctx, state) {
      if (ctx.currentTimer() !== name) return;
      const s = state[name];
      const ended = ctx.timeContext().currentWatermark() >= END;
      if (s.last !== null && (!ended || atEnd)) {
        emit(ctx, { last_seen: new Date(s.last), silent_at: new Date(s.last + timeout) }, null);
      }
      ctx.clearState(name);
    },
  };
}

/**
 * thresholdWithReset raises an alert when a key's value goes above
 * `above`, and raises the next only after the value has gone back below
 * `reset` (hysteresis: reset < above); it emits 'raised' and 'cleared'
 * rows with the value.
 *
 * Event time: crossings are read in the order of the rows' times, so call
 * it with ORDER BY (ts): a row earlier than the key's latest row is out of
 * order, dropped and counted (outOfOrder), since in arrival order a late
 * low value would clear an alert that a later high value raised. Ties
 * (equal times) are read in arrival order. Output: the input's columns
 * and alert, value.
 */
export function thresholdWithReset(options) {
  const o = opts(options, "thresholdWithReset");
  const col = column(o, "value", "thresholdWithReset");
  const above = number(o.above, "thresholdWithReset: above");
  const reset = o.reset === undefined ? above : number(o.reset, "thresholdWithReset: reset");
  if (reset > above) throw new Error("thresholdWithReset: reset must not be above 'above'");
  const name = o.stateName ?? "threshold";
  const emit = emitter(o);
  return {
    output: o.output ?? "ROW<alert STRING, alert_value DOUBLE>",
    args: setArgs(o.emit === undefined),
    state: { [name]: { default: { raised: false, last: null, outOfOrder: 0 } } },
    eval(ctx, state, { input }) {
      const s = state[name];
      const t = rowTime(ctx, "thresholdWithReset");
      if (s.last !== null && t < s.last) {
        s.outOfOrder++;
        ctx.noteDropped("out of order");
        return;
      }
      s.last = t;
      const v = readValue(input, col, "thresholdWithReset");
      if (v === null) return;
      if (!s.raised && v > above) {
        s.raised = true;
        emit(ctx, { alert: "raised", alert_value: v }, input);
      } else if (s.raised && v < reset) {
        s.raised = false;
        emit(ctx, { alert: "cleared", alert_value: v }, input);
      }
    },
  };
}

/**
 * changeDetection emits a row when a key's value differs from its value
 * before, with the previous value (the first row of a key is a change
 * from null only with emitFirst: true).
 *
 * Event time: "before" is the previous row in event time, so call it
 * with ORDER BY (ts); a row earlier than the key's latest is out of order,
 * dropped and counted (outOfOrder). Equal times keep arrival order. Values
 * compare as strings of their JSON, so 1 and 1.0 are equal, "1" and 1 not.
 */
export function changeDetection(options) {
  const o = opts(options, "changeDetection");
  const col = column(o, "value", "changeDetection");
  const name = o.stateName ?? "change";
  const emitFirst = o.emitFirst === true;
  const emit = emitter(o);
  return {
    output: o.output ?? "ROW<previous STRING>",
    args: setArgs(o.emit === undefined),
    state: { [name]: { default: { seen: false, value: null, last: null, outOfOrder: 0 } } },
    eval(ctx, state, { input }) {
      const s = state[name];
      const t = rowTime(ctx, "changeDetection");
      if (s.last !== null && t < s.last) {
        s.outOfOrder++;
        ctx.noteDropped("out of order");
        return;
      }
      s.last = t;
      if (!(col in input)) throw new Error(`changeDetection: the input has no column '${col}'`);
      const v = input[col];
      const text = v === null ? null : typeof v === "string" ? v : JSON.stringify(v);
      if (s.seen ? text !== s.value : emitFirst) {
        emit(ctx, { previous: s.value }, input);
      }
      s.seen = true;
      s.value = text;
    },
  };
}

/**
 * rateLimit lets at most `max` rows of a key through per `per` of event
 * time (fixed windows aligned to the epoch: [k·per, (k+1)·per)) and drops
 * the rest, counting them.
 *
 * Event time: a row counts in the window of its own time, not of the
 * watermark; the window's count is forgotten by a timer at its end. A row
 * of a window already forgotten (late: at or before the watermark past
 * that window's end) is let through or dropped by its own window's count
 * from zero, so without ORDER BY a late row can pass: call it with ORDER
 * BY (ts) to drop late rows. State (the counts of open windows and the
 * rows dropped) is cleared once no window is open. Output: options.output,
 * a ROW type of the input's columns to keep and window_start, filled by
 * name.
 */
export function rateLimit(options) {
  const o = opts(options, "rateLimit");
  const max = number(o.max ?? 1, "rateLimit: max");
  if (!Number.isInteger(max) || max < 1) throw new Error("rateLimit: max must be a whole number, 1 or more");
  const per = duration(o.per ?? "1 min", "rateLimit: per");
  if (per <= 0) throw new Error("rateLimit: per must be more than 0");
  const name = o.stateName ?? "rate";
  const emit = emitter(o);
  return {
    output: rowOutput(o, "rateLimit", "window_start TIMESTAMP_LTZ(3)"),
    args: setArgs(false),
    state: { [name]: { default: { counts: {}, dropped: 0 } } },
    eval(ctx, state, { input }) {
      const s = state[name];
      const t = rowTime(ctx, "rateLimit");
      const start = Math.floor(t / per) * per;
      const n = s.counts[start] ?? 0;
      if (n >= max) {
        s.dropped++;
        ctx.noteDropped("over the rate");
        return;
      }
      s.counts[start] = n + 1;
      ctx.timeContext().registerOnTime(start + per - 1);
      emit(ctx, { ...fields(input), window_start: new Date(start) }, input);
    },
    onTimer(ctx, state) {
      if (ctx.currentTimer() !== null) return;
      const s = state[name];
      const t = ctx.timeContext().time();
      for (const k of Object.keys(s.counts)) {
        if (Number(k) + per - 1 <= t) delete s.counts[k];
      }
      if (Object.keys(s.counts).length === 0) ctx.clearState(name);
    },
  };
}

/**
 * topN emits, per key and fixed window of `size` (aligned to the epoch),
 * the n rows of largest value, when the watermark reaches the window's
 * end - 1 (as a TUMBLE window Top-N does): rows (window_end, place,
 * label, score) with place 1 the largest, with the rowtime end - 1
 * (Flink's window_time).
 *
 * Event time: a row goes to the window of its own time. A row whose
 * window the watermark has passed (end - 1 at or before the watermark it
 * sees) is late: dropped and counted (late), as the window Top-N drops
 * it. Ties: equal values rank by arrival, as in Flink. The end of input
 * emits the windows left.
 */
export function topN(options) {
  const o = opts(options, "topN");
  const n = number(o.n ?? 3, "topN: n");
  if (!Number.isInteger(n) || n < 1) throw new Error("topN: n must be a whole number, 1 or more");
  const col = column(o, "value", "topN");
  const labelCol = o.label === undefined ? null : column(o, "label", "topN");
  const size = duration(o.size ?? "1 hour", "topN: size");
  if (size <= 0) throw new Error("topN: size must be more than 0");
  const name = o.stateName ?? "topn";
  const emit = emitter(o);
  return {
    output: o.output ?? "ROW<window_end TIMESTAMP_LTZ(3), place INT, label STRING, score DOUBLE>",
    args: setArgs(false),
    state: { [name]: { default: { windows: {}, late: 0, seq: 0 } } },
    eval(ctx, state, { input }) {
      const s = state[name];
      const t = rowTime(ctx, "topN");
      const start = Math.floor(t / size) * size;
      const wm = ctx.timeContext().currentWatermark();
      if (wm !== null && start + size - 1 <= wm) {
        s.late++;
        ctx.noteDropped("late");
        return;
      }
      const v = readValue(input, col, "topN");
      if (v === null) return;
      const label = labelCol === null ? null : input[labelCol] === null ? null : String(input[labelCol]);
      const w = (s.windows[start] ??= []);
      w.push({ v, t, i: s.seq++, label });
      w.sort((a, b) => b.v - a.v || a.i - b.i);
      if (w.length > n) w.length = n;
      ctx.timeContext().registerOnTime(start + size - 1);
    },
    onTimer(ctx, state) {
      if (ctx.currentTimer() !== null) return;
      const s = state[name];
      const now = ctx.timeContext().time();
      const due = Object.keys(s.windows).map(Number).filter((k) => k + size - 1 <= now).sort((a, b) => a - b);
      for (const k of due) {
        s.windows[k].forEach((e, r) => emit(ctx, { window_end: new Date(k + size), place: r + 1, label: e.label, score: e.v }, null));
        delete s.windows[k];
      }
      if (Object.keys(s.windows).length === 0 && s.late === 0) ctx.clearState(name);
    },
  };
}

/**
 * enrich joins each row of `input` with the version of `reference` (a
 * second table argument, partitioned by the same key) that was valid at
 * the row's time: the latest reference row at or before it, as Flink's
 * event-time temporal join (JOIN ... FOR SYSTEM_TIME AS OF) does. It
 * emits the input row's columns and the reference row's (the input's win
 * when both have a name), null fields when no version was valid yet
 * (absent from what emit gets), by the names of options.output; with
 * inner: true a row without a version is dropped instead (JOIN rather
 * than LEFT JOIN).
 *
 * Event time: a row is held until the watermark reaches its time (a timer
 * at it), because a reference row earlier in event time may still arrive
 * after it; the watermark of a call with two tables is the smaller of
 * theirs. Once the watermark has passed, the versions older than the one
 * valid at it are dropped, as the temporal join drops them; the held rows
 * the same advance releases keep the versions they need until their own
 * timers fire. A late input row (at or before the watermark) is held for
 * the next advance and joined with the versions kept, so it may find a
 * newer one than was valid at its time, or none: call it with ORDER BY to
 * drop late rows. A late reference row counts for rows joined after it.
 * Ties: a reference row at exactly the input row's time is valid for it,
 * and of two at one time the later to arrive. The end of input emits
 * what is held.
 */
export function enrich(options) {
  const o = opts(options, "enrich");
  const name = o.stateName ?? "enrich";
  const emit = emitter(o);
  const inner = o.inner === true;
  if (o.output === undefined) {
    throw new Error("enrich: option 'output' must be the ROW type of the columns to emit (of the input and the reference, besides the PARTITION BY columns): e.g. \"ROW<amount INT, rate DOUBLE>\"");
  }
  // prune drops the versions older than the one valid at time t.
  const prune = (s, t) => {
    let keep = 0;
    s.versions.forEach((x, i) => { if (x.t <= t) keep = i; });
    if (keep > 0) s.versions = s.versions.slice(keep);
  };
  return {
    output: o.output,
    args: [
      { name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] },
      { name: "reference", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] },
    ],
    state: { [name]: { default: { held: [], versions: [], prunedAt: null } } },
    eval(ctx, state, { input, reference }) {
      const s = state[name];
      const t = rowTime(ctx, "enrich");
      // The first row after the watermark moved drops the versions older
      // than the one valid at it, as the temporal join does at each
      // watermark: the held rows it reached have been joined (their
      // timers fired before this row), and a late row joins what is left.
      const wm = ctx.timeContext().currentWatermark();
      if (wm !== null && wm !== s.prunedAt) {
        prune(s, wm);
        s.prunedAt = wm;
      }
      if (reference) {
        s.versions.push({ t, row: fields(reference) });
        s.versions.sort((a, b) => a.t - b.t);
        return;
      }
      s.held.push({ t, row: fields(input) });
      ctx.timeContext().registerOnTime(t);
    },
    onTimer(ctx, state) {
      if (ctx.currentTimer() !== null) return;
      const s = state[name];
      const now = ctx.timeContext().time();
      const due = s.held.filter((h) => h.t <= now);
      s.held = s.held.filter((h) => h.t > now);
      for (const h of due) {
        let v = null;
        for (const x of s.versions) if (x.t <= h.t) v = x;
        if (v === null && inner) continue;
        const out = {};
        if (v !== null) Object.assign(out, v.row);
        Object.assign(out, h.row);
        emit(ctx, out, null);
      }
      // Keep the version valid at the watermark and those after it, and
      // the ones that the rows still held need: this advance of the
      // watermark may release more of them, at timers after this one.
      let upTo = ctx.timeContext().currentWatermark() ?? now;
      for (const h of s.held) upTo = Math.min(upTo, h.t);
      prune(s, upTo);
    },
  };
}
