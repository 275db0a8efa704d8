// What fails on Flink must fail in ptfsh, and the exported bridge fails
// the same way (TestRunExport_flinkExamples): the test runs the script's
// case as it is (mode 'ok') and again with mode 'wrong' (a string in a
// BIGINT field of typed state), 'extra' (an undeclared field), 'timer'
// (onTimer reads a scalar argument) and 'column' (a misspelt column of
// the row), each of which must fail on Flink with ptfsh's message.
export default {
  output: "ROW<n BIGINT>",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }, { name: "mode", type: "STRING" }],
  state: { s: { type: "ROW<n BIGINT, note STRING>" } },
  eval(ctx, { s }, { r, mode }) {
    s.n = mode === "wrong" ? "two" : r.v;
    if (mode === "extra") s.nte = "misspelt";
    if (mode === "column") s.note = String(r.vv);
    if (mode === "timer") ctx.timeContext().registerOnTime(ctx.timeContext().time() + 1);
    ctx.collect({ n: r.v });
  },
  onTimer(ctx, { s }, args) {
    ctx.collect({ n: args.mode === "x" ? 1 : 2 });
  },
};
