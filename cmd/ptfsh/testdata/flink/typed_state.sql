-- typed_state.js on Flink (TestRunExport_flinkExamples).
CREATE FUNCTION TypedState AS 'typed_state.js';
CREATE VIEW words (name, word, n) AS VALUES ('a', 'x', 1), ('b', 'y', 2), ('a', 'y', 3), ('a', 'x', 4);
SELECT * FROM TypedState(input => TABLE words PARTITION BY name);
