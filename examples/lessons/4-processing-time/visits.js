// Exercise 4: Visits. Count each card's taps and emit the count with each
// tap; but a card that was not seen for a minute of processing time starts
// again at 1, whatever the taps' own times say. The test moves the
// stream's clock by hand (ADVANCE PROCESSING TIME).
//
// Check it: ptfsh test examples/lessons/4-processing-time
export default {
  output: "BIGINT",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { seen: { default: { n: 0 } } },
  eval(ctx, { seen }) {
    seen.n++;
    ctx.collect(seen.n);
  },
};
