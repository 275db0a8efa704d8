// ListView and MapView state on Flink: the views' methods, their order,
// null checks and clearState, as export_examples_test.go checks them.
export default {
  output: "ROW<seen STRING, counts STRING, n INT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: {
    scores: { kind: "list", type: "ARRAY<INT>" },
    words: { kind: "map", type: "MAP<STRING, BIGINT>" },
    byScore: { kind: "map", type: "MAP<INT, STRING>" },
  },
  eval(ctx, { scores, words, byScore }, { input }) {
    if (input.score < 0) {
      ctx.clearState("scores"); // empty when the call returns
      words.remove(input.word);
    } else {
      scores.add(input.score);
      words.put(input.word, (words.get(input.word) ?? 0) + 1);
      byScore.put(input.score, input.word);
    }
    let nullRefused = false;
    try {
      scores.add(null);
    } catch (e) {
      nullRefused = e instanceof TypeError;
    }
    words.put("zz-null", null); // null values are kept
    const counts = [];
    for (const [k, v] of words) counts.push(`${k}=${v}`);
    ctx.collect({
      seen: `${[...scores].join(",")} first=${scores.isEmpty() ? "-" : scores.get(0)} ${nullRefused}`,
      counts: counts.join(" ") + " | " + [...byScore.keys()].join(",") + " " + byScore.contains(7),
      n: scores.size() + words.size(),
    });
  },
};
