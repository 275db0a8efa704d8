// NoDepartureAlert: per origin airport, an alert when no flight departed
// for two hours of event time.
//
// Each departure sets an unnamed timer two hours later and cancels the
// previous one if it has not come due. The timer fires when the watermark
// passes it: that is the alert, at the time the silence reached two hours.
//
// One subtlety of event time: the watermark lags behind the rows. When the
// next departure comes two hours or more after the last, the deadline has
// passed, but its timer may not have fired yet (the watermark advances only
// after rows, and this very row may be the one that moves it). Such a timer
// is left alone: it fires at the next watermark advance, still carrying the
// deadline's time. Only a deadline that has not come due is cancelled: a
// departure exactly two hours after the last one does not cancel the alert
// (the airport was silent for two hours).
const TWO_HOURS = 2 * 60 * 60 * 1000;
const END_OF_INPUT = Number.MAX_SAFE_INTEGER; // the watermark at the end (Long.MAX_VALUE)

export default {
  output: "ROW<last_departure TIMESTAMP(3)>",
  args: [{ name: "flights", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { silence: { default: { deadline: null } } },
  eval(ctx, { silence }, { flights }) {
    const time = ctx.timeContext();
    if (silence.deadline !== null && time.time() < silence.deadline) {
      time.clearTimer(silence.deadline); // a departure in time: no alert
    }
    silence.deadline = time.time() + TWO_HOURS;
    time.registerOnTime(silence.deadline);
  },
  onTimer(ctx) {
    const time = ctx.timeContext();
    // The end of a bounded input fires every timer left: the data stops
    // there, not the departures, so those timers raise no alert.
    if (time.currentWatermark() === END_OF_INPUT) return;
    ctx.collect({ last_departure: new Date(time.time() - TWO_HOURS) });
  },
};
