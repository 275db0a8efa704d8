-- flights_workflow.sql in DuckDB (python3 duckdb_run.py flights_workflow.duckdb.sql):
-- the same two outputs. The streak is a run of departures delayed by more
-- than 30 minutes per origin in time order (ties in file order), reported
-- at its third; delays are written as ptfsh's csv format writes an array.
CREATE VIEW flights AS
  SELECT "date", delay::INTEGER AS delay, origin, file_row_number AS seq
  FROM read_parquet('flights.parquet', file_row_number = true);
CREATE TABLE airports AS
  SELECT * FROM read_csv('airports.csv', header = false,
    columns = {'code': 'VARCHAR', 'name': 'VARCHAR', 'city': 'VARCHAR'});
COPY (
  SELECT h.origin, a.name AS airport, h.window_start, h.flights, h.delayed, h.total_delay, h.max_delay
  FROM (
    SELECT origin, time_bucket(INTERVAL 1 HOUR, "date") AS window_start, count(*) AS flights,
           count(*) FILTER (WHERE delay > 15) AS delayed, sum(delay)::BIGINT AS total_delay,
           max(delay) AS max_delay
    FROM flights GROUP BY ALL
  ) h JOIN airports a ON h.origin = a.code
) TO 'hourly.parquet' (FORMAT parquet);
COPY (
  WITH runs AS (
    SELECT *, sum(CASE WHEN delay IS NULL OR delay <= 30 THEN 1 ELSE 0 END)
             OVER (PARTITION BY origin ORDER BY "date", seq ROWS UNBOUNDED PRECEDING) AS run
    FROM flights
  ), streaks AS (
    SELECT origin, row_number() OVER w AS n, lag("date", 2) OVER w AS streak_start,
           [lag(delay, 2) OVER w, lag(delay, 1) OVER w, delay] AS delays
    FROM runs WHERE delay > 30
    WINDOW w AS (PARTITION BY origin, run ORDER BY "date", seq)
  )
  SELECT s.origin, a.name AS airport, strftime(s.streak_start, '%Y-%m-%d %H:%M:%S'),
         '[' || array_to_string(s.delays, ',') || ']'
  FROM streaks s JOIN airports a ON s.origin = a.code WHERE s.n = 3
) TO 'streaks.csv' (FORMAT csv, HEADER false);
