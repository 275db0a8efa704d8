// A solution of exercise 3 (Hourly).
const HOUR = 3600000;
export default {
  output: "ROW<hour_start TIMESTAMP_LTZ(3), departures BIGINT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { hours: { default: {} } },
  eval(ctx, { hours }) {
    const t = ctx.timeContext().time();
    const start = Math.floor(t / HOUR) * HOUR;
    hours[start] = (hours[start] ?? 0) + 1;
    ctx.timeContext().registerOnTime(start + HOUR);
  },
  onTimer(ctx, { hours }) {
    const end = ctx.timeContext().time();
    const start = end - HOUR;
    ctx.collect({ hour_start: new Date(start), departures: hours[start] });
    delete hours[start];
    if (Object.keys(hours).length === 0) ctx.clearState("hours");
  },
};
