var __ptfsh_module = (() => {
  var __defProp = Object.defineProperty;
  var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
  var __getOwnPropNames = Object.getOwnPropertyNames;
  var __hasOwnProp = Object.prototype.hasOwnProperty;
  var __export = (target, all) => {
    for (var name in all)
      __defProp(target, name, { get: all[name], enumerable: true });
  };
  var __copyProps = (to, from, except, desc) => {
    if (from && typeof from === "object" || typeof from === "function") {
      for (let key of __getOwnPropNames(from))
        if (!__hasOwnProp.call(to, key) && key !== except)
          __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
    }
    return to;
  };
  var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);

  // delay_streak.js
  var delay_streak_exports = {};
  __export(delay_streak_exports, {
    default: () => delay_streak_default
  });
  var LATE = 30;
  var delay_streak_default = {
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
    }
  };
  return __toCommonJS(delay_streak_exports);
})();

__ptfsh_module.default;
