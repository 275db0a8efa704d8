// How values reach JavaScript on Flink (TestRunExport_flinkExamples):
// FLOAT as the double of its float (0.5: ptfsh keeps 0.1 as the double 0.1), TIME in milliseconds, BYTES as a
// Uint8Array, a BIGINT beyond 2^53 as a BigInt, NaN, a nested row, the
// row methods; and what collect takes.
export default {
  output: "ROW<what STRING, d DOUBLE, big BIGINT>",
  args: [{ name: "input", traits: ["ROW_SEMANTIC_TABLE"] }],
  eval(ctx, state, { input }) {
    const b = input.b;
    ctx.collect({
      what: [
        input.f, input.t, typeof input.big, b instanceof Uint8Array ? Array.from(b).join(".") : String(b),
        input.getFieldAs("nested").getField(1), input.nested.x, input.getArity(), input.getFieldNames().join("/"),
        String(input.getKind()), Object.keys(input).join("/"),
      ].join(" "),
      d: input.n,
      big: input.big,
    });
    ctx.collect(["array", null, 1]);
  },
};
