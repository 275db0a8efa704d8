// ptfsh/flink — render JS values the way Java's toString does in Flink's
// own PTF tests, so that ports of those tests print Flink's exact rows.
//
//   import { objects, javaString } from "ptfsh/flink";
//   ctx.collect({ out: objects(input, threshold) });   // "{+I[Bob, 12], 1}"

/** instant renders epoch milliseconds as java.time.Instant.toString. */
export function instant(ms) {
  const d = new Date(ms);
  let s = d.toISOString(); // 1970-01-01T00:00:00.000Z
  s = s.replace(/\.000Z$/, "Z");
  return s;
}

/** duration renders milliseconds as java.time.Duration.toString (PT1S). */
export function duration(ms) {
  if (ms === 0) return "PT0S";
  const neg = ms < 0;
  let rest = Math.abs(ms);
  const hours = Math.floor(rest / 3600000);
  rest -= hours * 3600000;
  const minutes = Math.floor(rest / 60000);
  rest -= minutes * 60000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  const sign = neg ? "-" : "";
  let out = "PT";
  if (hours) out += sign + hours + "H";
  if (minutes) out += sign + minutes + "M";
  if (seconds || millis) {
    out += sign + seconds;
    if (millis) out += "." + String(millis).padStart(3, "0").replace(/0+$/, "");
    out += "S";
  }
  return out;
}

/** period renders months as java.time.Period.toString (P1Y2M). */
export function period(months) {
  if (months === 0) return "P0D";
  const y = Math.trunc(months / 12);
  const m = months % 12;
  return "P" + (y ? y + "Y" : "") + (m ? m + "M" : "");
}

/** javaString renders a value as Java's String.valueOf would in Flink's tests. */
export function javaString(v) {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return String(v);
  if (v instanceof Date) return instant(v.getTime());
  if (Array.isArray(v)) return "[" + v.map(javaString).join(", ") + "]";
  if (v instanceof Map) {
    const parts = [];
    for (const [k, val] of v) parts.push(javaString(k) + "=" + javaString(val));
    return "{" + parts.join(", ") + "}";
  }
  return String(v);
}

/** objects is Flink's collectObjects text: "{" + values + "}". */
export function objects(...values) {
  return "{" + values.map(javaString).join(", ") + "}";
}
