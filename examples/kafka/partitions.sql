-- A lesson step on Kafka: watermarks per partition, and an empty partition.
-- Run it against a broker on localhost:9092 with the topic taps (3 partitions).
--
-- A topic is split into partitions, and a partition is the unit of order:
-- its records come in the order they were written, but two partitions are
-- read side by side, in no order between them. So each partition gets a
-- watermark of its own (the table's WATERMARK over its records), and the
-- table's watermark is the LEAST of them: one partition far ahead does not
-- make the records of a slower one late.

SET 'ptfsh.format' = 'rows';

CREATE TABLE taps (
  card STRING, ts TIMESTAMP_LTZ(3),
  `partition` INT METADATA VIRTUAL,
  written TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',   -- when the record was written
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'kafka', 'topic' = 'taps',
  'properties.bootstrap.servers' = 'localhost:9092',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'key.format' = 'raw', 'key.fields' = 'card', 'value.format' = 'json');

-- The card is the record's key, so a card's taps land in one partition.
-- Card A's tap at 12:00:10 is written first, to partition 1; D's and F's
-- earlier taps come after it, to partitions 0 and 2.
INSERT INTO taps VALUES
  ('A', TIMESTAMP_LTZ '2025-03-27 12:00:10', TIMESTAMP_LTZ '2025-03-27 13:00:00'),
  ('D', TIMESTAMP_LTZ '2025-03-27 12:00:01', TIMESTAMP_LTZ '2025-03-27 13:00:01'),
  ('F', TIMESTAMP_LTZ '2025-03-27 12:00:02', TIMESTAMP_LTZ '2025-03-27 13:00:02'),
  ('D', TIMESTAMP_LTZ '2025-03-27 12:00:03', TIMESTAMP_LTZ '2025-03-27 13:00:03');

-- wm is the watermark each row saw. A's 12:00:10 moved only its own
-- partition's: the others had none yet, so the table had none. Then the
-- table's watermark is the least of the three, 12:00:01 after F's tap
-- (D's partition is the slowest), and D's and F's taps are on time.
SELECT `partition`, card, ts, CURRENT_WATERMARK(ts) AS wm FROM taps;

-- So a five-second window keeps every tap. (With one watermark over the
-- records as written, 12:00:10 would have made the first window's taps
-- late, and they would be dropped.)
SELECT window_start, COUNT(*) AS taps
FROM TABLE(TUMBLE(TABLE taps, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;

-- The catch: a partition without records has no watermark, and holds the
-- table's back. This read is bounded ('scan.bounded.mode'), and a
-- partition at its end holds nothing back. A read without end (leave out
-- 'scan.bounded.mode') whose topic has an empty partition fires no window
-- at all, for ever, until
--   SET 'table.exec.source.idle-timeout' = '1 s';
-- marks a partition that had no record for a second idle: an idle
-- partition holds nothing back until its next record. Try it: run the
-- window query above without end, with and without the timeout, while
-- taps keep coming to two of the three partitions (docs/kafka.md,
-- "Watermarks per partition and idle partitions").
