package script_test

import (
	"fmt"

	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/script"
)

func ExampleEngine_Load() {
	e := script.NewEngine(script.Options{ParseType: script.ParseTypeForTest, FormatRow: types.FormatRow})
	defer e.Close()
	def, err := e.Load("greeting_with_memory", "", `({
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { memory: { default: { counter: 0 } } },
  eval(ctx, { memory }, { input }) {
    memory.counter++;
    ctx.collect("Hello " + input.name + ", your " + memory.counter + " time?");
  },
})`)
	if err != nil {
		fmt.Println(err)
		return
	}
	input := types.Schema{Columns: []types.Column{{Name: "name", Type: types.TypeString}}}
	h, err := ptfop.NewHarness(def, input, ptfop.HarnessOptions{PartitionBy: []string{"name"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close()
	out, err := h.Process(types.NewRow("Bob"), types.NewRow("Alice"), types.NewRow("Bob"))
	if err != nil {
		fmt.Println(err)
	}
	for _, r := range out {
		fmt.Println(types.FormatRow(r, h.Schema()))
	}
	// Output:
	// +I[Bob, Hello Bob, your 1 time?]
	// +I[Alice, Hello Alice, your 1 time?]
	// +I[Bob, Hello Bob, your 2 time?]
}

func ExampleError() {
	e := script.NewEngine(script.Options{ParseType: script.ParseTypeForTest})
	defer e.Close()
	_, err := e.Load("f", "f.js", "export default {\n  output: 'STRING',\n  args: [{ name: 'uid', type: 'STRING' }],\n  eval() {},\n};\n")
	fmt.Println(err)
	// Output:
	// f.js:3:18: f: Function signature must not declare system arguments. Reserved argument names are: [on_time, uid]
}
