-- CheckoutProcessor: a shopping cart as a state machine with named timers
-- (REMINDER, TIMEOUT), from the PTF documentation.
--   go run ./cmd/ptfsh -f examples/checkout_processor.sql
--
-- The rows format prints what Flink's tests compare; the documentation
-- gives these two rows for this input.

CREATE FUNCTION CheckoutProcessor AS 'checkout_processor.js';

CREATE TABLE events (`user` STRING, eventType STRING, productId BIGINT, ts TIMESTAMP_LTZ(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
AS VALUES
  ('Bob',   'ADD',      1,    TIMESTAMP '2025-03-27 12:00:11'),
  ('Alice', 'ADD',      1,    TIMESTAMP '2025-03-27 12:00:21'),
  ('Bob',   'REMOVE',   1,    TIMESTAMP '2025-03-27 12:00:51'),
  ('Bob',   'ADD',      2,    TIMESTAMP '2025-03-27 12:00:55'),
  ('Bob',   'ADD',      5,    TIMESTAMP '2025-03-27 12:00:56'),
  ('Bob',   'CHECKOUT', NULL, TIMESTAMP '2025-03-27 12:01:50');

SET 'ptfsh.format' = 'rows';

-- Bob's first cart empties at 12:00:51 (everything cleared); the checkout
-- emits his second cart and moves the watermark to 12:01:49, which fires
-- Alice's reminder (12:01:21). Her timeout fires at the end and emits nothing.
SELECT * FROM CheckoutProcessor(
  events => TABLE events PARTITION BY `user`,
  reminderInterval => INTERVAL '1' MINUTE,
  timeoutInterval => INTERVAL '2' MINUTE,
  on_time => DESCRIPTOR(ts));

-- A cart that is left alone. The second ADD moves the reminder to 13:01:05
-- and the timeout to 13:02:05 (a name registered again replaces its timer).
-- The WATERMARK step (event time moved by hand) fires both: the reminder
-- lists two of product 7, the timeout forgets the cart, and the checkout at
-- 13:03:30 finds it empty and emits nothing.
CREATE TABLE abandoned (`user` STRING, eventType STRING, productId BIGINT, ts TIMESTAMP_LTZ(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
AS VALUES
  ('Carol', 'ADD',      7,    TIMESTAMP '2025-03-27 13:00:00'),
  ('Carol', 'ADD',      7,    TIMESTAMP '2025-03-27 13:00:05'),
  WATERMARK TIMESTAMP '2025-03-27 13:03:00',
  ('Carol', 'CHECKOUT', NULL, TIMESTAMP '2025-03-27 13:03:30');
SELECT * FROM CheckoutProcessor(
  events => TABLE abandoned PARTITION BY `user`,
  reminderInterval => INTERVAL '1' MINUTE,
  timeoutInterval => INTERVAL '2' MINUTE,
  on_time => DESCRIPTOR(ts));
