// ListView and MapView state of rows and other non-primitive elements
// (DECIMAL, TIMESTAMP, ARRAY) on Flink, as export_examples_test.go checks
// them: added as objects by field name and as arrays by position, read
// back as rows (fields by name, getField, toString).
export default {
  output: "ROW<hist STRING, last STRING, n INT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: {
    hist: { kind: "list", type: "ARRAY<ROW<word STRING, at TIMESTAMP(3), `the price` DECIMAL(10, 2), tags ARRAY<STRING>>>" },
    last: { kind: "map", type: "MAP<STRING, ROW<n INT, seen ARRAY<ROW<at TIMESTAMP(3)>>>>" },
    prices: { kind: "list", type: "ARRAY<DECIMAL(10, 2)>" },
    times: { kind: "map", type: "MAP<INT, ARRAY<TIMESTAMP(3)>>" },
  },
  eval(ctx, { hist, last, prices, times }, { input }) {
    if (input.word === "reset") {
      ctx.clearState("hist");
      last.remove("pear");
    } else if (input.price > 5) {
      hist.add({ word: input.word, at: input.ts, "the price": input.price, tags: [input.word, "x"] });
    } else {
      hist.add([input.word, input.ts, input.price, []]);
    }
    const old = last.get(input.word);
    const seen = old === null ? [] : old.seen.map((r) => ({ at: r.at }));
    seen.push({ at: input.ts });
    last.put(input.word, { n: old === null ? 1 : old.n + 1, seen });
    prices.add(input.price);
    times.put(hist.size(), [input.ts]);
    const h = [...hist].map((r) => `${r.word}@${r.at.toISOString()}/${r.getField(2)}/${r.tags.join("+")}`);
    const l = [];
    for (const [k, v] of last) l.push(`${k}:${v.n}:${v.seen.length}:${String(v)}`);
    ctx.collect({
      hist: h.join(" ") + (hist.isEmpty() ? "" : " first=" + String(hist.get(0))),
      last: l.join(" ") + " | " + [...prices].join(",") + " | " + [...times.values()].map((a) => a[0].getTime()).join(","),
      n: hist.size() + last.size(),
    });
  },
};
