package ptfsh;

import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.ArgumentTrait;
import org.apache.flink.table.functions.ProcessTableFunction;
import org.apache.flink.types.Row;

/** Echo is a row-semantic PTF that emits each input row's name column. */
public class Echo extends ProcessTableFunction<String> {
    public void eval(@ArgumentHint(ArgumentTrait.ROW_SEMANTIC_TABLE) Row input) {
        collect(String.valueOf(input.getField("name")));
    }
}
