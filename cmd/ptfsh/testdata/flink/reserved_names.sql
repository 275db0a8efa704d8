-- ReservedNames (reserved_names.js) over tables and views whose names
-- and columns are reserved words of Flink SQL, written as ptfsh takes
-- them (without backquotes).
CREATE FUNCTION ReservedNames AS 'reserved_names.js';
CREATE TABLE events (user STRING, value INT, `year` INT) AS VALUES ('ann', 1, 2020), ('bob', 2, 2021), ('ann', 3, 2022);
SELECT * FROM ReservedNames(input => TABLE events PARTITION BY user);
CREATE VIEW sum AS SELECT user, value + 10 AS value FROM events WHERE value > 1;
SELECT value, n FROM ReservedNames(input => TABLE sum PARTITION BY user);
