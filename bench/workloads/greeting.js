// Workload C: a greeting with memory. Per user (PARTITION BY user_id) it
// remembers how many pages they viewed and the last one, and greets every
// click with a message built from both.
export default {
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { memory: { default: { count: 0, last_url: null } } },
  eval(ctx, { memory }, { input }) {
    memory.count++;
    const before = memory.last_url === null ? "your first page" : `last time ${memory.last_url}`;
    ctx.collect(`Hello ${input.user_id}, visit ${memory.count}: ${input.url} (${before})`);
    memory.last_url = input.url;
  },
};
