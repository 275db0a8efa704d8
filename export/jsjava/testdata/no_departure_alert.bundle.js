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

  // no_departure_alert.js
  var no_departure_alert_exports = {};
  __export(no_departure_alert_exports, {
    default: () => no_departure_alert_default
  });
  var TWO_HOURS = 2 * 60 * 60 * 1e3;
  var END_OF_INPUT = Number.MAX_SAFE_INTEGER;
  var no_departure_alert_default = {
    output: "ROW<last_departure TIMESTAMP(3)>",
    args: [{ name: "flights", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
    state: { silence: { default: { deadline: null } } },
    eval(ctx, { silence }, { flights }) {
      const time = ctx.timeContext();
      if (silence.deadline !== null && time.time() < silence.deadline) {
        time.clearTimer(silence.deadline);
      }
      silence.deadline = time.time() + TWO_HOURS;
      time.registerOnTime(silence.deadline);
    },
    onTimer(ctx) {
      const time = ctx.timeContext();
      if (time.currentWatermark() === END_OF_INPUT) return;
      ctx.collect({ last_departure: new Date(time.time() - TWO_HOURS) });
    }
  };
  return __toCommonJS(no_departure_alert_exports);
})();

__ptfsh_module.default;
