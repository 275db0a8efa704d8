-- The faker connector's speed: 2M rows of a five-column table (the Flink
-- SQL cookbook's server_logs: an IP address, a time, three regexify and a
-- number), filtered (no row passes, so that printing costs nothing). Run on one core and read the CPU time, which a shared
-- machine's load does not inflate:
--   go build -o /tmp/ptfsh ./cmd/ptfsh
--   GOMAXPROCS=1 /usr/bin/time -f '%U user %S sys %e wall' /tmp/ptfsh -f bench/workloads/faker.sql
-- rows/s = 2000000 / (user + sys). The Go benchmark of the source alone:
--   GOMAXPROCS=1 go test ./runtime/connector -run '^$' -bench FakerNode -cpu 1
SET 'ptfsh.processing-time' = '2025-03-27 12:00:00';
CREATE TABLE server_logs (
    client_ip STRING,
    log_time TIMESTAMP(3),
    request_line STRING,
    status_code STRING,
    size INT
) WITH (
  'connector' = 'faker',
  'number-of-rows' = '2000000',
  'fields.client_ip.expression' = '#{Internet.publicIpV4Address}',
  'fields.log_time.expression' = '#{date.past ''15'',''5'',''SECONDS''}',
  'fields.request_line.expression' = '#{regexify ''(GET|POST|PUT|PATCH){1}''} #{regexify ''(/search\.html|/login\.html|/prod\.html|cart\.html|/order\.html){1}''} #{regexify ''(HTTP/1\.1|HTTP/2|/HTTP/1\.0){1}''}',
  'fields.status_code.expression' = '#{regexify ''(200|201|204|400|401|403|301){1}''}',
  'fields.size.expression' = '#{number.numberBetween ''100'',''10000000''}'
);
SELECT * FROM server_logs WHERE size < 0;
