// A scalar function (kind: "scalar") with an optional argument, on Flink
// as a ScalarFunction (TestRunExport_flinkExamples).
export default {
  kind: "scalar",
  args: [{ name: "price", type: "DOUBLE" }, { name: "rate", type: "DOUBLE", optional: true }],
  output: "DOUBLE",
  eval(price, rate) { return price === null ? null : price * (rate ?? 2); },
};
