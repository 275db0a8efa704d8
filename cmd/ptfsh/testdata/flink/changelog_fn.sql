-- changelog_fn.js on Flink (TestRunExport_flinkExamples).
CREATE FUNCTION ChangelogFn AS 'changelog_fn.js';
CREATE VIEW scores (name, score) AS VALUES ('a', 1), ('b', 2), ('a', 3), ('a', 4);
SET 'ptfsh.format' = 'rows';
SELECT * FROM ChangelogFn(input => TABLE scores PARTITION BY name);
