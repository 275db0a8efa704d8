// Words splits a line into its lower-case words.
export default {
  output: "ROW<word STRING>",
  args: [{ name: "lines", traits: ["ROW_SEMANTIC_TABLE"] }],
  eval(ctx, state, { lines }) {
    for (const w of lines.line.toLowerCase().match(/[a-z']+/g) ?? []) {
      ctx.collect({ word: w });
    }
  },
};
