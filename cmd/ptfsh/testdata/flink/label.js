// A scalar function of several argument types and an ARRAY output, on
// Flink as a ScalarFunction (TestRunExport_flinkExamples).
export default {
  kind: "scalar",
  args: [
    { name: "name", type: "STRING" },
    { name: "n", type: "BIGINT" },
    { name: "amount", type: "DECIMAL(10, 2)" },
    { name: "ts", type: "TIMESTAMP(3)" },
    { name: "ok", type: "BOOLEAN" },
  ],
  output: "ARRAY<STRING>",
  eval(name, n, amount, ts, ok) {
    return [
      name === null ? "?" : name.toUpperCase(),
      n === null ? null : String(n * 2),
      amount === null ? null : amount.toFixed(2),
      ts === null ? null : ts.toISOString(),
      String(ok),
    ];
  },
};
