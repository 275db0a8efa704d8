// ChangelogAuditor — an audit trail of a changelog: for every change of a
// key, one insert-only row with the value before and after it.
//
// The table argument takes updates (SUPPORT_UPDATES) and asks for them in
// full: REQUIRE_UPDATE_BEFORE delivers the -U row of every update (from an
// upsert source too, whose -U rows the planner then makes up from the last
// row of the key), REQUIRE_FULL_DELETE delivers deletes with all their
// columns (not only the key).
export default {
  output: "ROW<version INT, change STRING, rate_before DECIMAL(10, 4), rate_after DECIMAL(10, 4)>",
  args: [{
    name: "input",
    traits: ["SET_SEMANTIC_TABLE", "SUPPORT_UPDATES", "REQUIRE_UPDATE_BEFORE", "REQUIRE_FULL_DELETE"],
  }],
  // Per key: the rate it holds, how many versions it has had, and the rate
  // a -U took back (the +U after it completes the update).
  state: { current: { default: { rate: null, version: 0, retracted: null } } },
  eval(ctx, { current }, { input }) {
    const audit = (change, before, after) =>
      ctx.collect({ version: current.version, change, rate_before: before, rate_after: after });
    switch (String(input.getKind())) {
      case "INSERT":
        current.version++;
        audit("created", null, input.rate);
        current.rate = input.rate;
        break;
      case "UPDATE_BEFORE":
        // The old row of an update: it must be the rate we hold.
        if (input.rate !== current.rate) {
          audit(`-U of ${input.rate}, but held ${current.rate}`, current.rate, null);
        }
        current.retracted = input.rate;
        break;
      case "UPDATE_AFTER":
        current.version++;
        audit("updated", current.retracted ?? current.rate, input.rate);
        current.rate = input.rate;
        current.retracted = null;
        break;
      case "DELETE":
        current.version++;
        audit("deleted", input.rate, null);
        ctx.clearState("current");   // created again, a key starts at version 1
        break;
    }
  },
};
