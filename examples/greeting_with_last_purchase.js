// GreetingWithLastPurchase — two table arguments (Flink's docs, "Multiple
// Tables"). Both tables use set semantics and are co-partitioned: a visit
// of Alice and a purchase of Alice reach the same key, so they share the
// state of that key. Each call of eval gets exactly one non-null table row;
// the other argument is null.
export default {
  output: "STRING",
  args: [
    { name: "visit", traits: ["SET_SEMANTIC_TABLE"] },
    { name: "purchase", traits: ["SET_SEMANTIC_TABLE"] },
  ],
  state: { last: { default: { lastItem: null } } },
  eval(ctx, { last }, { visit, purchase }) {
    if (purchase !== null) {
      last.lastItem = purchase.item;   // a purchase only remembers the item
      return;
    }
    if (last.lastItem === null) {
      ctx.collect(`Hello ${visit.name}, let me know if I can help!`);
    } else {
      ctx.collect(`Hello ${visit.name}, here to buy ${last.lastItem} again?`);
    }
  },
};
