-- A PTF fed by a shell pipeline: each line of standard input is one
-- value (the raw format), split into words by a function; SQL counts them.
--
--   cat notes.txt | ptfsh --format rows -f examples/live/words.sql
CREATE FUNCTION Words AS 'words.js';

CREATE TABLE lines (line STRING) WITH ('connector' = 'stdin', 'format' = 'raw');

SELECT word, COUNT(*) AS n FROM Words(TABLE lines) GROUP BY word;
