// CheckoutProcessor: a shopping cart as a state machine with named timers
// (the Flink/Confluent PTF documentation's example, ported to JavaScript).
//
// Per user: ADD puts a product in the cart and (re)sets two named timers,
// REMINDER and TIMEOUT; REMOVE takes one out again (an empty cart clears
// everything); CHECKOUT emits the cart and clears everything. The REMINDER
// timer emits the cart as a reminder; TIMEOUT forgets the cart silently.
export default {
  output: "ROW<checkout_type STRING, items MAP<BIGINT, INT>>",
  args: [
    { name: "events", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] },
    { name: "reminderInterval", type: "INTERVAL DAY TO SECOND" }, // milliseconds in JS
    { name: "timeoutInterval", type: "INTERVAL DAY TO SECOND" },
  ],
  // ShoppingCart: product id -> count. Object keys are strings in JS; they
  // keep the numeric order of integer keys, as Java's HashMap of small Longs.
  state: { cart: { default: { content: {} } } },

  eval(ctx, { cart }, { events, reminderInterval, timeoutInterval }) {
    const time = ctx.timeContext();
    const schedule = () => {
      // Registering a name again replaces that timer.
      time.registerOnTime("REMINDER", time.time() + reminderInterval);
      time.registerOnTime("TIMEOUT", time.time() + timeoutInterval);
    };
    const product = events.productId;
    switch (events.eventType) {
      case "ADD":
        cart.content[product] = (cart.content[product] ?? 0) + 1;
        schedule();
        break;
      case "REMOVE":
        if (cart.content[product] !== undefined && --cart.content[product] === 0) {
          delete cart.content[product];
        }
        if (Object.keys(cart.content).length === 0) {
          ctx.clearAll(); // state and timers
        } else {
          schedule();
        }
        break;
      case "CHECKOUT":
        if (Object.keys(cart.content).length > 0) {
          ctx.collect({ checkout_type: "CHECKOUT", items: items(cart.content) });
        }
        ctx.clearAll();
        break;
    }
  },

  onTimer(ctx, { cart }) {
    switch (ctx.currentTimer()) {
      case "REMINDER":
        ctx.collect({ checkout_type: "REMINDER", items: items(cart.content) });
        break;
      case "TIMEOUT":
        ctx.clearAll();
        break;
    }
  },
};

// items turns the cart into a MAP<BIGINT, INT>: a JS Map with number keys.
function items(content) {
  return new Map(Object.entries(content).map(([id, count]) => [Number(id), count]));
}
