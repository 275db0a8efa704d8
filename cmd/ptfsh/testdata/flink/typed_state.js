// Typed value state and state TTL on Flink (TestRunExport_flinkExamples):
// a ROW-typed entry starts as an object of its fields, all null; a Date and
// a Map in state keep their kind between calls, as in ptfsh.
export default {
  output: "ROW<before STRING, n INT, since TIMESTAMP(3)>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: {
    last: { type: "ROW<word STRING, n INT>" },
    kept: { default: { first: null, seen: new Map() }, ttl: "1 hour" },
  },
  eval(ctx, { last, kept }, { input }) {
    const before = JSON.stringify(last);
    last.word = input.word;
    last.n = (last.n ?? 0) + 1;
    if (kept.first === null) kept.first = new Date(Date.UTC(2025, 2, 27, 12, input.n));
    kept.seen.set(input.word, (kept.seen.get(input.word) ?? 0) + 1);
    ctx.collect({ before: `${before} ${kept.first instanceof Date} ${[...kept.seen].join(";")}`, n: last.n, since: kept.first });
  },
};
