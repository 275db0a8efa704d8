-- Lesson 5: one pattern written twice, as MATCH_RECOGNIZE and as a PTF.
--   go run ./cmd/ptfsh -f examples/lessons/5-patterns/lesson.sql
--
-- Three failed logins (or more) within a minute, then a success: someone
-- guessed a password. Flink SQL says it with MATCH_RECOGNIZE: a PATTERN
-- of rows per user, in time order, within a minute. A PTF says it with
-- state (the fails so far) and a timer (a fail older than a minute can
-- start no match). Both wait for the watermark, both drop the late row,
-- both give the same rows; the timelines show how each gets there.

SET 'ptfsh.format' = 'rows';
SET 'ptfsh.processing-time' = '2025-03-27 12:00:00';

-- bob's 10:01:10 fail comes after his 10:01:25 success: the watermark
-- (5 seconds behind) has passed it, so it is late.
CREATE TABLE logins (usr STRING, outcome STRING, ts TIMESTAMP_LTZ(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'logins.csv', 'format' = 'csv');

-- 1. MATCH_RECOGNIZE. F{3,} is three fails or more, S the success right
-- after them; WITHIN bounds the whole match, first fail to success.
SELECT * FROM logins MATCH_RECOGNIZE (
  PARTITION BY usr ORDER BY ts
  MEASURES FIRST(F.ts) AS first_fail, COUNT(F.ts) AS fails, S.ts AS success, MATCH_ROWTIME(ts) AS rowtime
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (F{3,} S) WITHIN INTERVAL '1' MINUTE
  DEFINE F AS F.outcome = 'fail', S AS S.outcome = 'ok');
-- alice's 10:03:00 fail is 80 seconds before her 10:04:20 success: the
-- match starts at 10:03:30. bob has two fails in the minute before his
-- success, carol two. The picture: each row sets a timer at its time
-- (Flink's CEP operator does), and when the watermark passes it the rows
-- of that time go through the pattern; a match is a row out.
EXPLAIN TIMELINE SELECT * FROM logins MATCH_RECOGNIZE (
  PARTITION BY usr ORDER BY ts
  MEASURES FIRST(F.ts) AS first_fail, COUNT(F.ts) AS fails, S.ts AS success
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (F{3,} S) WITHIN INTERVAL '1' MINUTE
  DEFINE F AS F.outcome = 'fail', S AS S.outcome = 'ok');

-- 2. The same as a PTF (the solution of this lesson's exercise): the
-- fails of the last minute in state, a timer a minute after each fail
-- that forgets it. ORDER BY ts gives eval the rows in time order, as
-- MATCH_RECOGNIZE sees them, and drops the late row.
CREATE FUNCTION Brute AS 'solutions/brute.js';
SELECT * FROM Brute(input => TABLE logins PARTITION BY usr ORDER BY ts, on_time => DESCRIPTOR(ts));
-- Its timers are its own: one a minute after each fail, cleared by a
-- success, fired when a fail grows too old.
EXPLAIN TIMELINE SELECT * FROM Brute(input => TABLE logins PARTITION BY usr ORDER BY ts, on_time => DESCRIPTOR(ts));

-- 3. Ordered by processing time (PROCTIME()), MATCH_RECOGNIZE takes the
-- rows as they arrive: no watermark, nothing late, and WITHIN measures
-- the machine's clock. Here every row arrives in the same instant (the
-- clock is fixed), so every run of fails is within a minute: bob's three
-- make a match, alice's second match starts at 10:03:00, and bob's late
-- fail, which came after his success, starts a match that never ends.
CREATE TABLE logins_now (usr STRING, outcome STRING, ts TIMESTAMP_LTZ(3), pt AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = 'logins.csv', 'format' = 'csv');
SELECT * FROM logins_now MATCH_RECOGNIZE (
  PARTITION BY usr ORDER BY pt
  MEASURES FIRST(F.ts) AS first_fail, COUNT(F.ts) AS fails, S.ts AS success, MATCH_PROCTIME() AS matched_at
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (F{3,} S) WITHIN INTERVAL '1' MINUTE
  DEFINE F AS F.outcome = 'fail', S AS S.outcome = 'ok');

-- Exercise: exercise.txtar (ptfsh test examples/lessons/5-patterns).
