// ptfsh/patterns — building blocks of stream processing, each a PTF
// declaration made by a function of options:
//
//   import { sessionize } from "ptfsh/patterns";
//   export default sessionize({ gap: "30 min" });
//
// and called with set semantics and on_time:
//
//   SELECT * FROM Sessions(input => TABLE clicks PARTITION BY user_id ORDER BY ts, on_time => DESCRIPTOR(ts));
//
// Every pattern keeps one value entry of state per key (named after the
// pattern, or options.stateName) and says in its comment which event time
// decides, because a row sees the watermark left by the rows before it,
// not its own: a pattern that compares a row with "now" through the
// watermark decides by arrival order. These decide by the rows' own times
// (tc.time()) and use timers only to emit results and to clean state.
// Rows that arrive out of order break patterns that need order; call
// those with ORDER BY (ts), which sorts each key's rows and drops the
// rows that arrive late. A pattern that still sees a row out of order
// drops it and counts it in its state (outOfOrder), which SHOW STATE shows.
//
// Inside another function: every pattern takes options.emit(ctx, out,
// row) to collect its result differently (out is the pattern's output
// object, row the input row or null in onTimer), with options.output the
// type that emit collects, and options.stateName when two patterns share
// one function. The returned declaration's eval and onTimer may then be
// called from the function's own (pass the same state object).
//
// Patterns: dedup, sessionize, absence, thresholdWithReset, changeDetection,
// rateLimit, topN, enrich. Types: stdlib/dts/patterns.d.ts, in the
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
 * kept row's time, never by the watermark; a timer at kept + within only
 * forgets the kept row (it checks that no later row was kept since). A
 * row at exactly kept + within is a new first row. Without ORDER BY,
 * "first" means first to arrive; with ORDER BY (ts) it is the earliest in
 * event time, and ties keep the row that came first. A row whose time +
 * within is at or before the watermark is too late: the row it would
 * duplicate may have been forgotten, so it is dropped (counted in dropped
 * only while the key has state; call with ORDER BY to have such rows
 * dropped and counted in a note). Output: options.output,
 * a ROW type of the input's columns to keep and window_end (when
 * duplicates of this row stop being dropped), filled by name; Flink
 * allows no PASS_COLUMNS_THROUGH with timers.
 */
export function dedup(options) {
  const o = opts(options, "dedup");
  const within = duration(o.within ?? "1 hour", "dedup: within");
  const name = o.stateName ?? "dedup";
  const emit = emitter(o);
  return {
    output: rowOutput(o, "dedup", "window_end TIMESTAMP_LTZ(3)"),
    args: setArgs(false),
    state: { [name]: { default: { kept: null, dropped: 0 } } },
    eval(ctx, state, { input }) {
      const s = state[name];
      const t = rowTime(ctx, "dedup");
      if (s.kept !== null && Math.abs(t - s.kept) < within) {
        s.dropped++;
        return;
      }
      const wm = ctx.timeContext().currentWatermark();
      if (wm !== null && t + within <= wm) {
        // Too late: a row it duplicates may have been forgotten already.
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
 * sessionize groups a key's rows into sessions: rows less than `gap`
 * apart belong to one session, which closes when the watermark passes its
 * last row + gap; it emits one row per session (session_start,
 * session_end = last row + gap, events).
 *
 * Event time: membership is decided by the rows' times, never by the
 * watermark (a row at exactly last + gap starts a new session, as Flink's
 * SESSION windows do). A row earlier than the open session but less than
 * gap before it extends the session's start. A row earlier than the end
 * of a session already emitted is late: it is dropped and counted (late),
 * as a closed session cannot change. A row a gap or more before the open
 * session is out of order (call with ORDER BY): dropped and counted. A
 * row a gap or more after the open session's last row closes it at once
 * (its row then has this row's rowtime), since the watermark this row
 * sees is the one before it and the session's timer has not fired yet.
 * The end of input closes every open session.
 */
export function sessionize(options) {
  const o = opts(options, "sessionize");
  const gap = duration(o.gap ?? "30 min", "sessionize: gap");
  if (gap <= 0) throw new Error("sessionize: gap must be more than 0");
  const name = o.stateName ?? "session";
  const emit = emitter(o);
  return {
    output: o.output ?? "ROW<session_start TIMESTAMP_LTZ(3), session_end TIMESTAMP_LTZ(3), events BIGINT>",
    args: setArgs(false),
    state: { [name]: { default: { start: null, last: null, events: 0, closedEnd: null, late: 0, outOfOrder: 0 } } },
    eval(ctx, state) {
      const s = state[name];
      const t = rowTime(ctx, "sessionize");
      if (s.closedEnd !== null && t < s.closedEnd) {
        s.late++;
        return;
      }
      if (s.start === null) {
        s.start = t;
        s.last = t;
        s.events = 1;
      } else if (t >= s.last) {
        if (t - s.last >= gap) {
          // The open session ended before this row: its timer has not
          // fired yet because this row sees the watermark of the rows
          // before it. Close it now (emitted at this row's time).
          closeSession(ctx, s, emit);
          s.start = t;
          s.last = t;
          s.events = 1;
        } else {
          s.last = t;
          s.events++;
        }
      } else if (t > s.start - gap) {
        s.start = Math.min(s.start, t);
        s.events++;
      } else {
        s.outOfOrder++;
        return;
      }
      ctx.timeContext().registerOnTime(name, s.last + gap);
    },
    onTimer(ctx, state) {
      if (ctx.currentTimer() !== name) return;
      const s = state[name];
      if (s.start !== null) closeSession(ctx, s, emit);
    },
  };
  function closeSession(ctx, s, emit) {
    const end = s.last + gap;
    emit(ctx, { session_start: new Date(s.start), session_end: new Date(end), events: s.events }, null);
    s.closedEnd = end;
    s.start = null;
    s.last = null;
    s.events = 0;
  }
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
 * the n rows of largest value, when the watermark passes the window's end:
 * rows (window_end, place, label, score) with place 1 the largest.
 *
 * Event time: a row goes to the window of its own time; the window is
 * emitted once, by a timer at its end, so a row for a window already
 * emitted is late: dropped and counted (late). Ties: equal values rank by
 * time, then by arrival. The end of input emits the windows left. A key
 * keeps the end of its last emitted window (emittedUpTo) to know late rows.
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
    state: { [name]: { default: { windows: {}, emittedUpTo: null, late: 0, seq: 0 } } },
    eval(ctx, state, { input }) {
      const s = state[name];
      const t = rowTime(ctx, "topN");
      const start = Math.floor(t / size) * size;
      if (s.emittedUpTo !== null && start + size <= s.emittedUpTo) {
        s.late++;
        return;
      }
      const v = readValue(input, col, "topN");
      if (v === null) return;
      const label = labelCol === null ? null : input[labelCol] === null ? null : String(input[labelCol]);
      const w = (s.windows[start] ??= []);
      w.push({ v, t, i: s.seq++, label });
      w.sort((a, b) => b.v - a.v || a.t - b.t || a.i - b.i);
      if (w.length > n) w.length = n;
      ctx.timeContext().registerOnTime(start + size);
    },
    onTimer(ctx, state) {
      if (ctx.currentTimer() !== null) return;
      const s = state[name];
      const now = ctx.timeContext().time();
      const due = Object.keys(s.windows).map(Number).filter((k) => k + size <= now).sort((a, b) => a - b);
      for (const k of due) {
        s.windows[k].forEach((e, r) => emit(ctx, { window_end: new Date(k + size), place: r + 1, label: e.label, score: e.v }, null));
        delete s.windows[k];
        s.emittedUpTo = Math.max(s.emittedUpTo ?? 0, k + size);
      }
    },
  };
}

/**
 * enrich joins each row of `input` with the version of `reference` (a
 * second table argument, partitioned by the same key) that was valid at
 * the row's time: the latest reference row at or before it, as Flink's
 * event-time temporal join does. It emits the input row's columns and
 * the reference row's (the input's win when both have a name), null
 * fields when no version was valid yet (absent from what emit gets), by
 * the names of options.output.
 *
 * Event time: a row is held until the watermark passes its time (a timer
 * at it), because a reference row earlier in event time may still arrive
 * after it; the watermark of a call with two tables is the smaller of
 * theirs. Versions older than the one valid at the watermark are dropped.
 * A late input row (at or before the watermark) is joined with the
 * versions kept, so it may find a newer one than was valid at its time,
 * or none: call it with ORDER BY to drop late rows. A late reference row
 * counts for later input rows only. Ties: a reference row at exactly the
 * input row's time is valid for it. The end of input emits what is held.
 */
export function enrich(options) {
  const o = opts(options, "enrich");
  const name = o.stateName ?? "enrich";
  const emit = emitter(o);
  if (o.output === undefined) {
    throw new Error("enrich: option 'output' must be the ROW type of the columns to emit (of the input and the reference, besides the PARTITION BY columns): e.g. \"ROW<amount INT, rate DOUBLE>\"");
  }
  return {
    output: o.output,
    args: [
      { name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] },
      { name: "reference", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] },
    ],
    state: { [name]: { default: { held: [], versions: [] } } },
    eval(ctx, state, { input, reference }) {
      const s = state[name];
      const t = rowTime(ctx, "enrich");
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
        const out = {};
        if (v !== null) Object.assign(out, v.row);
        Object.assign(out, h.row);
        emit(ctx, out, null);
      }
      // Keep the version valid at the watermark and those after it.
      const wm = ctx.timeContext().currentWatermark() ?? now;
      let keep = 0;
      s.versions.forEach((x, i) => { if (x.t <= wm) keep = i; });
      s.versions = s.versions.slice(keep);
    },
  };
}
