// The benchmark's hand-tuned V8 reference: workloads A, B and C of
// clicks.csv written directly in JavaScript the way one tunes a Node
// program, to measure how far ptfsh and the harness are from what V8 can
// do with the same logic. It reads the file in large chunks, splits lines
// and fields with indexOf (a line with a quote goes the general way),
// keeps state in a Map of plain objects, never makes a Date (the
// timestamp column is not parsed: no workload reads it) and writes the
// same CSV to stdout as `ptfsh --format csv` (a header, the PARTITION BY
// column, the function's output).
//
//	node tuned.mjs --workload filter|count|greeting --input clicks.csv
import { openSync, readSync, writeSync, closeSync } from "node:fs";

function args(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith("--") || i + 1 >= argv.length) {
      throw new Error(`usage: node tuned.mjs --workload filter|count|greeting --input FILE (at ${argv[i]})`);
    }
    out[argv[i].slice(2)] = argv[i + 1];
  }
  return out;
}

// Output: strings gathered and written in blocks of about 1 MiB.
let outParts = [];
let outSize = 0;
function emit(s) {
  outParts.push(s);
  outSize += s.length;
  if (outSize >= 1 << 20) flush();
}
function flush() {
  if (outParts.length === 0) return;
  const buf = Buffer.from(outParts.join(""), "utf8");
  let off = 0;
  while (off < buf.length) off += writeSync(1, buf, off, buf.length - off);
  outParts = [];
  outSize = 0;
}

// csvField quotes a field when RFC 4180 needs it or when it is empty, as
// ptfsh's csv format writes it.
function csvField(s) {
  if (s.length === 0) return '""';
  if (s.indexOf(",") < 0 && s.indexOf('"') < 0 && s.indexOf("\n") < 0 && s.indexOf("\r") < 0) return s;
  return '"' + s.replaceAll('"', '""') + '"';
}

// splitQuoted splits a line with quotes as RFC 4180 reads it.
function splitQuoted(line) {
  const fields = [];
  let i = 0;
  for (;;) {
    if (line.charCodeAt(i) === 34) {
      let v = "";
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) throw new Error(`an unterminated quote: ${line}`);
        v += line.slice(i, q);
        if (line.charCodeAt(q + 1) === 34) {
          v += '"';
          i = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      fields.push(v);
    } else {
      let c = line.indexOf(",", i);
      if (c < 0) c = line.length;
      fields.push(line.slice(i, c));
      i = c;
    }
    if (i >= line.length) return fields;
    i++; // the comma
  }
}

function main() {
  const a = args(process.argv.slice(2));
  const workload = a.workload;
  const fd = openSync(a.input, "r");
  const counts = new Map();
  const memories = new Map();
  switch (workload) {
    case "filter":
      emit("user_id,url,view_time\n");
      break;
    case "count":
      emit("user_id,click_count\n");
      break;
    case "greeting":
      emit("user_id,EXPR$0\n");
      break;
    default:
      throw new Error(`unknown workload ${workload}`);
  }
  const chunk = Buffer.allocUnsafe(4 << 20);
  let carry = "";
  let lineNo = 0;
  for (;;) {
    const n = readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) break;
    // Cut at the last newline, so that a chunk's text is whole lines
    // (and whole UTF-8 characters).
    let end = chunk.lastIndexOf(10, n - 1);
    let text;
    if (end < 0) {
      carry += chunk.toString("utf8", 0, n);
      continue;
    }
    text = carry + chunk.toString("utf8", 0, end + 1);
    carry = chunk.toString("utf8", end + 1, n);
    lineNo = lines(text, workload, counts, memories, lineNo);
  }
  if (carry.length > 0) lines(carry + "\n", workload, counts, memories, lineNo);
  closeSync(fd);
  flush();
}

function lines(text, workload, counts, memories, lineNo) {
  let pos = 0;
  while (pos < text.length) {
    let nl = text.indexOf("\n", pos);
    if (nl < 0) nl = text.length;
    let end = nl;
    if (end > pos && text.charCodeAt(end - 1) === 13) end--;
    lineNo++;
    if (end > pos) {
      let user, url, view;
      const line = text.slice(pos, end);
      let plain = false; // the first three fields need no quotes when written
      if (line.indexOf('"') < 0) {
        const c1 = line.indexOf(",");
        const c2 = line.indexOf(",", c1 + 1);
        const c3 = line.indexOf(",", c2 + 1);
        if (c1 < 0 || c2 < 0 || c3 < 0 || line.indexOf(",", c3 + 1) >= 0) throw new Error(`line ${lineNo}: want 4 fields: ${line}`);
        user = line.slice(0, c1);
        url = line.slice(c1 + 1, c2);
        view = line.slice(c2 + 1, c3);
        plain = c1 > 0 && c2 > c1 + 1;
      } else {
        const f = splitQuoted(line);
        if (f.length !== 4) throw new Error(`line ${lineNo}: want 4 fields: ${line}`);
        [user, url, view] = f;
      }
      const viewTime = +view;
      if (!Number.isInteger(viewTime)) throw new Error(`line ${lineNo}: view_time ${view} is not an integer`);
      switch (workload) {
        case "filter":
          if (viewTime >= 500) {
            // The input's first three fields, as they are, when they need
            // no quotes and the number is written as it was read.
            if (plain && String(viewTime) === view) emit(line.slice(0, line.lastIndexOf(",")) + "\n");
            else emit(csvField(user) + "," + csvField(url) + "," + viewTime + "\n");
          }
          break;
        case "count": {
          const n = (counts.get(user) || 0) + 1;
          counts.set(user, n);
          emit(csvField(user) + "," + n + "\n");
          break;
        }
        case "greeting": {
          let m = memories.get(user);
          if (m === undefined) {
            m = { count: 0, lastURL: null };
            memories.set(user, m);
          }
          m.count++;
          const before = m.lastURL === null ? "your first page" : "last time " + m.lastURL;
          emit(csvField(user) + "," + csvField(`Hello ${user}, visit ${m.count}: ${url} (${before})`) + "\n");
          m.lastURL = url;
          break;
        }
      }
    }
    pos = nl + 1;
  }
  return lineNo;
}

main();
