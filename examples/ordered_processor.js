// OrderedProcessor: shows the order in which rows reach eval. Each row's
// score and time go into a list in state, and the whole list is emitted
// after every row. Called with ORDER BY (ts ASC, score DESC), rows arrive
// in event-time order, ties by score descending, and late rows are dropped.
export default {
  output: "ROW<seen ARRAY<STRING>>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { memory: { default: { list: [] } } },
  eval(ctx, { memory }, { input }) {
    // "score@mm:ss" keeps the list short: minutes and seconds of ts (UTC).
    memory.list.push(`${input.score}@${input.ts.toISOString().slice(14, 19)}`);
    ctx.collect({ seen: memory.list });
  },
};
