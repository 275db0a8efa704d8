// GreetingWithMemory — set semantics and value state.
// Rows are partitioned by the PARTITION BY columns; each key has its own
// `memory`, a fresh copy of the default the first time the key is seen.
export default {
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: {
    memory: { default: { counter: 0 } },
  },
  eval(ctx, { memory }, { input }) {
    memory.counter++;
    ctx.collect(`Hello ${input.name}, your ${memory.counter} time?`);
  },
};
