// The Node side of the benchmark: it runs a ptfsh function file, the very
// file ptfsh loads, over a CSV or JSON lines file and writes the rows CSV
// to stdout the way `ptfsh --format csv` prints them (a header, then the
// PARTITION BY column, the output's fields and, with on_time, the
// rowtime). It is a minimal stand-in for ptfsh's runtime, enough for the
// benchmark's functions and no more:
//
//   - one table argument; set semantics (--partition COL) or row semantics;
//     scalar arguments given as --scalar name=number;
//   - value state only: per key, a deep copy of each entry's default, a
//     plain object kept in a Map;
//   - ctx.collect(value) for a STRING output or an object or array for a
//     ROW<...> output; insert-only;
//   - with --on-time COL: event time as ptfsh has it, a watermark after
//     each row (the largest time so far minus --watermark-delay ms, never
//     going back), a row seeing the watermark of the rows before it,
//     timers (unnamed by time, or named) firing in time order when the
//     watermark reaches them, and a last watermark of
//     Number.MAX_SAFE_INTEGER at the end of the input that fires the rest;
//     ctx.timeContext() has time, currentWatermark, registerOnTime and
//     clearTimer.
//
// Input lines are split by hand; TIMESTAMP values reach the function as
// Date objects (UTC), INT and BIGINT as numbers, as in ptfsh.
//
//   node harness.mjs --fn F.js --input clicks.csv --format csv \
//     --columns user_id:STRING,url:STRING,view_time:INT,ts:TIMESTAMP \
//     [--partition user_id] [--scalar min_view_time=500] \
//     [--on-time date --watermark-delay 60000]
//
// No npm packages. The function file is ESM with `export default`; it is
// imported from a data: URL of its text, so that a .js file outside a
// "type": "module" package loads as a module without copying it.

import fs from "node:fs";
import path from "node:path";

const opts = parseArgs(process.argv.slice(2));
const src = fs.readFileSync(opts.fn, "utf8");
const mod = await import(
  "data:text/javascript;charset=utf-8," +
    encodeURIComponent(src + "\n//# sourceURL=" + path.resolve(opts.fn)),
);
const fn = mod.default;
const columns = opts.columns.split(",").map((c) => {
  const [name, type] = c.split(":");
  return { name, type: type.toUpperCase() };
});
const tableArg = fn.args.find((a) => (a.traits || []).some((t) => t.endsWith("_SEMANTIC_TABLE"))).name;
const scalars = {};
for (const s of opts.scalar) {
  const i = s.indexOf("=");
  scalars[s.slice(0, i)] = Number(s.slice(i + 1));
}
const outFields = outputFields(fn.output);
const scalarOutput = !/^ROW\s*</i.test(fn.output.trim());
const partition = opts.partition || null;
const onTime = opts["on-time"] || null;
const wmDelay = Number(opts["watermark-delay"] || 0);
const stateDecl = fn.state || {};
const stateNames = Object.keys(stateDecl);

// ---- output ---------------------------------------------------------------

let out = "";
function write(s) {
  out += s;
  if (out.length >= 1 << 16) flush();
}
function flush() {
  if (out.length > 0) fs.writeSync(1, out);
  out = "";
}

function csvField(s) {
  if (s.length === 0 || /[",\r\n]/.test(s)) return '"' + s.replaceAll('"', '""') + '"';
  return s;
}

// text prints a value as ptfsh's csv format does.
function text(v) {
  if (v === null || v === undefined) return "";
  if (v instanceof Date) return localDateTime(v.getTime());
  if (typeof v === "string") return csvField(v);
  return String(v);
}

// localDateTime prints epoch milliseconds as Flink's csv format writes a
// TIMESTAMP (UTC): 2001-01-01 02:47:00, a fraction without trailing zeros
// only when there is one.
function localDateTime(ms) {
  const iso = new Date(ms).toISOString(); // 2001-01-01T02:47:00.000Z
  const s = iso.slice(0, 10) + " " + iso.slice(11, 19);
  const frac = iso.slice(20, 23).replace(/0+$/, "");
  return frac ? s + "." + frac : s;
}

const header = [];
if (partition) header.push(partition);
for (const f of outFields) header.push(f.name);
if (onTime) header.push("rowtime");
write(header.map(csvField).join(",") + "\n");

// ---- the call ---------------------------------------------------------------

let keyText = ""; // the current row's PARTITION BY column, printed, with its comma
let rowtime = 0; // the current call's time (row time or timer time)

function emit(v) {
  let line = keyText;
  if (scalarOutput) {
    line += text(v);
  } else if (Array.isArray(v)) {
    for (let i = 0; i < outFields.length; i++) line += (i ? "," : "") + text(v[i]);
  } else {
    for (let i = 0; i < outFields.length; i++) line += (i ? "," : "") + text(v[outFields[i].name]);
  }
  if (onTime) line += "," + localDateTime(rowtime);
  write(line + "\n");
}

const states = new Map(); // key -> { entry: object }
function stateFor(key) {
  let s = states.get(key);
  if (s === undefined) {
    s = {};
    for (const n of stateNames) {
      const d = stateDecl[n].default;
      s[n] = d === undefined ? {} : structuredClone(d);
    }
    states.set(key, s);
  }
  return s;
}

// ---- event time -------------------------------------------------------------

let watermark = null; // null until the first watermark
let maxTime = -Infinity;
let currentKey = null;
let seq = 0;
const timersByKey = new Map(); // key -> { byTime: Map(ts -> seq), byName: Map(name -> {ts, seq}) }
const heap = []; // { ts, seq, key, name } ordered by (ts, seq)

function keyTimers(key) {
  let t = timersByKey.get(key);
  if (t === undefined) {
    t = { byTime: new Map(), byName: new Map() };
    timersByKey.set(key, t);
  }
  return t;
}

const timeContext = {
  time: () => rowtime,
  currentWatermark: () => watermark,
  tableWatermark: () => watermark,
  registerOnTime(a, b) {
    const t = keyTimers(currentKey);
    const s = ++seq;
    if (b === undefined) {
      const ts = toMillis(a);
      if (t.byTime.has(ts)) return; // one unnamed timer per time
      t.byTime.set(ts, s);
      heapPush({ ts, seq: s, key: currentKey, name: null });
    } else {
      const ts = toMillis(b);
      t.byName.set(a, { ts, seq: s }); // registering a name again replaces it
      heapPush({ ts, seq: s, key: currentKey, name: a });
    }
  },
  clearTimer(a) {
    const t = keyTimers(currentKey);
    if (typeof a === "string") t.byName.delete(a);
    else t.byTime.delete(toMillis(a));
  },
  clearAllTimers() {
    timersByKey.delete(currentKey);
  },
};

function toMillis(v) {
  return v instanceof Date ? v.getTime() : Number(v);
}

const ctx = {
  collect: emit,
  timeContext: () => timeContext,
};

function live(e) {
  const t = timersByKey.get(e.key);
  if (t === undefined) return false;
  if (e.name === null) return t.byTime.get(e.ts) === e.seq;
  const n = t.byName.get(e.name);
  return n !== undefined && n.seq === e.seq;
}

function fireTimers() {
  while (heap.length > 0 && heap[0].ts <= watermark) {
    const e = heapPop();
    if (!live(e)) continue;
    const t = timersByKey.get(e.key);
    if (e.name === null) t.byTime.delete(e.ts);
    else t.byName.delete(e.name);
    currentKey = e.key;
    keyText = partition ? csvField(String(e.key)) + "," : "";
    rowtime = e.ts;
    fn.onTimer(ctx, stateFor(e.key), scalars);
  }
}

function heapLess(a, b) {
  return a.ts < b.ts || (a.ts === b.ts && a.seq < b.seq);
}
function heapPush(e) {
  heap.push(e);
  let i = heap.length - 1;
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (!heapLess(heap[i], heap[p])) break;
    [heap[i], heap[p]] = [heap[p], heap[i]];
    i = p;
  }
}
function heapPop() {
  const top = heap[0];
  const last = heap.pop();
  if (heap.length > 0) {
    heap[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < heap.length && heapLess(heap[l], heap[m])) m = l;
      if (r < heap.length && heapLess(heap[r], heap[m])) m = r;
      if (m === i) break;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  }
  return top;
}

// ---- rows -------------------------------------------------------------------

const args = { ...scalars };
function processRow(row) {
  args[tableArg] = row;
  if (partition) {
    const key = row[partition];
    currentKey = key;
    keyText = csvField(String(key)) + ",";
    if (onTime) rowtime = row[onTime].getTime();
    fn.eval(ctx, stateFor(key), args);
  } else {
    if (onTime) rowtime = row[onTime].getTime();
    fn.eval(ctx, {}, args);
  }
  if (onTime) {
    if (rowtime > maxTime) maxTime = rowtime;
    const w = maxTime - wmDelay;
    if (watermark === null || w > watermark) watermark = w;
    fireTimers(); // also those registered at or before an unchanged watermark
  }
}

// parseTimestamp reads "yyyy-MM-dd HH:mm:ss[.SSS]" (or with a T) as UTC.
function parseTimestamp(s) {
  let ms = 0;
  if (s.length > 20) ms = Math.round(Number("0" + s.slice(19)) * 1000);
  return new Date(
    Date.UTC(+s.slice(0, 4), +s.slice(5, 7) - 1, +s.slice(8, 10), +s.slice(11, 13), +s.slice(14, 16), +s.slice(17, 19), ms),
  );
}

function convert(type, s) {
  if (type === "STRING") return s;
  if (type === "INT" || type === "BIGINT") return s === "" ? null : Number(s);
  if (type.startsWith("TIMESTAMP")) return s === "" ? null : parseTimestamp(s);
  throw new Error("harness: column type " + type + " is not supported");
}

// splitCSV splits one line of RFC 4180 CSV.
function splitCSV(line) {
  if (line.indexOf('"') < 0) return line.split(",");
  const fields = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let v = "";
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) throw new Error("harness: unterminated quote in " + line);
        v += line.slice(i, q);
        if (line[q + 1] === '"') {
          v += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      fields.push(v);
    } else {
      const c = line.indexOf(",", i);
      fields.push(line.slice(i, c < 0 ? line.length : c));
      i = c < 0 ? line.length : c;
    }
    if (i >= line.length) break;
    i++; // the comma
  }
  return fields;
}

function csvRow(line) {
  const f = splitCSV(line);
  const row = {};
  for (let i = 0; i < columns.length; i++) row[columns[i].name] = convert(columns[i].type, f[i]);
  return row;
}

const timestampCols = columns.filter((c) => c.type.startsWith("TIMESTAMP")).map((c) => c.name);
function jsonRow(line) {
  const row = JSON.parse(line);
  for (const c of timestampCols) if (typeof row[c] === "string") row[c] = parseTimestamp(row[c]);
  return row;
}

const toRow = opts.format === "jsonl" ? jsonRow : csvRow;

// Read the file in 1 MiB chunks and cut it into lines by hand; the bytes
// after a chunk's last newline wait for the next chunk (as bytes, so that a
// character split between chunks decodes whole).
const fd = fs.openSync(opts.input, "r");
const chunk = Buffer.allocUnsafe(1 << 20);
let rest = Buffer.alloc(0);
for (;;) {
  const n = fs.readSync(fd, chunk, 0, chunk.length, null);
  if (n === 0) break;
  const nl = chunk.lastIndexOf(10, n - 1);
  if (nl < 0) {
    rest = Buffer.concat([rest, chunk.subarray(0, n)]);
    continue;
  }
  const text = rest.length > 0
    ? Buffer.concat([rest, chunk.subarray(0, nl + 1)]).toString("utf8")
    : chunk.toString("utf8", 0, nl + 1);
  rest = Buffer.from(chunk.subarray(nl + 1, n));
  eachLine(text);
}
if (rest.length > 0) eachLine(rest.toString("utf8") + "\n");
fs.closeSync(fd);
if (onTime) {
  watermark = Number.MAX_SAFE_INTEGER; // the end of a bounded input
  fireTimers();
}
flush();

function eachLine(text) {
  let start = 0;
  for (;;) {
    const nl = text.indexOf("\n", start);
    if (nl < 0) break;
    let end = nl;
    if (end > start && text.charCodeAt(end - 1) === 13) end--;
    if (end > start) processRow(toRow(text.slice(start, end)));
    start = nl + 1;
  }
}

// ---- declarations -------------------------------------------------------------

// outputFields reads the names of a ROW<...> output type; a scalar output
// is one column, EXPR$0.
function outputFields(type) {
  const t = type.trim();
  if (!/^ROW\s*</i.test(t)) return [{ name: "EXPR$0" }];
  const inner = t.slice(t.indexOf("<") + 1, t.lastIndexOf(">"));
  const fields = [];
  let depth = 0, start = 0;
  for (let i = 0; i <= inner.length; i++) {
    const c = inner[i];
    if (c === "<" || c === "(") depth++;
    else if (c === ">" || c === ")") depth--;
    else if ((c === "," && depth === 0) || i === inner.length) {
      const f = inner.slice(start, i).trim();
      fields.push({ name: f.split(/\s+/)[0].replaceAll("`", "") });
      start = i + 1;
    }
  }
  return fields;
}

function parseArgs(argv) {
  const o = { scalar: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) throw new Error("harness: unexpected argument " + a);
    const name = a.slice(2);
    const v = argv[++i];
    if (v === undefined) throw new Error("harness: " + a + " needs a value");
    if (name === "scalar") o.scalar.push(v);
    else o[name] = v;
  }
  for (const req of ["fn", "input", "columns"]) {
    if (!o[req]) throw new Error("harness: --" + req + " is required");
  }
  o.format ||= "csv";
  return o;
}
