-- flights_window.sql in DuckDB (python3 duckdb_run.py flights_window.duckdb.sql),
-- printed as CSV with a header, as ptfsh prints it.
COPY (
  SELECT origin, strftime(time_bucket(INTERVAL 1 HOUR, "date"), '%Y-%m-%d %H:%M:%S') AS window_start,
         count(*) AS flights, count(*) FILTER (WHERE delay > 15) AS delayed,
         sum(delay)::BIGINT AS total_delay, max(delay)::INTEGER AS max_delay
  FROM read_parquet('flights.parquet') GROUP BY ALL
) TO '/dev/stdout' (FORMAT csv, HEADER true);
