// SensorThresholds — a control stream that changes per-key behaviour.
// Two co-partitioned table arguments: sensor readings, and commands that
// set a sensor's alert threshold or mute and unmute its alerts. Both land
// on the same key (the sensor), so the commands change the state that the
// readings of that sensor are judged by.
export default {
  output: "ROW<temp DECIMAL(4, 1), threshold DECIMAL(4, 1), status STRING>",
  args: [
    { name: "readings", traits: ["SET_SEMANTIC_TABLE"] },
    { name: "commands", traits: ["SET_SEMANTIC_TABLE"] },
    { name: "default_threshold", type: "DECIMAL(4, 1)" },
  ],
  state: { sensor: { default: { threshold: null, muted: false } } },
  // One of readings and commands is a row, the other null.
  eval(ctx, { sensor }, { readings, commands, default_threshold }) {
    sensor.threshold ??= default_threshold;
    if (commands !== null) {
      switch (commands.command) {
        case "threshold": sensor.threshold = commands.threshold; break;
        case "mute": sensor.muted = true; break;
        case "unmute": sensor.muted = false; break;
        default: throw new Error(`unknown command ${commands.command}`);
      }
      // Acknowledge the command, so that the output shows when it took effect.
      ctx.collect({ temp: null, threshold: sensor.threshold, status: commands.command });
      return;
    }
    let status = readings.temp > sensor.threshold ? "ALERT" : "ok";
    if (status === "ALERT" && sensor.muted) status = "alert muted";
    ctx.collect({ temp: readings.temp, threshold: sensor.threshold, status });
  },
};
