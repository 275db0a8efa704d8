// ptfsh/ptf — definePTF, for a function whose output type an editor checks.
//
//   import { definePTF } from "ptfsh/ptf";
//   export default definePTF({
//     output: "ROW<url STRING, click_count BIGINT>",
//     args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
//     eval(ctx, state, { input }) { ctx.collect({ url: input.url, click_count: 1 }); },
//   });
//
// At run time it returns its argument as it is; its type declaration
// (globals.d.ts, written by ptfsh init) reads the output type and makes
// ctx.collect take the row of those columns, so that tsc (ptfsh check)
// or an editor flags a misspelt or missing column or a value of the
// wrong type.

/** definePTF returns decl: the PTF declaration, typed by its output. */
export function definePTF(decl) {
  return decl;
}
