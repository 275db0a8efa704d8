// DelayStreak: per origin airport, three departures in a row delayed by
// more than 30 minutes. A departure on time (or less late) ends the
// streak; a streak is reported once, at its third delayed departure.
const LATE = 30; // minutes

export default {
  output: "ROW<streak_start TIMESTAMP(3), delays ARRAY<INT>>",
  args: [{ name: "flights", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { streak: { default: { start: null, delays: [] } } },
  eval(ctx, { streak }, { flights }) {
    if (flights.delay === null || flights.delay <= LATE) {
      streak.start = null;
      streak.delays = [];
      return;
    }
    if (streak.delays.length === 0) streak.start = flights.date;
    streak.delays.push(flights.delay);
    if (streak.delays.length === 3) {
      ctx.collect({ streak_start: streak.start, delays: streak.delays });
    }
  },
};
