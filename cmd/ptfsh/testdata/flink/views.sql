-- views.js on Flink (TestRunExport_flinkExamples): ListView and MapView
-- state, keys in order (strings by their UTF-8 bytes, numbers by value).
CREATE FUNCTION ViewState AS 'views.js';

CREATE VIEW events (name, word, score) AS VALUES
  ('a', 'pear', 10), ('a', 'apple', 7), ('b', 'Zebra', 3), ('a', 'pear', 100),
  ('a', 'äpfel', -1), ('b', 'apple', 20), ('a', 'fig', 2);

SELECT * FROM ViewState(input => TABLE events PARTITION BY name);
