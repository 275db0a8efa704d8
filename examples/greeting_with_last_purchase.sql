-- GreetingWithLastPurchase: two co-partitioned table arguments (Flink's
-- docs, "Multiple Tables").
--   go run ./cmd/ptfsh -f examples/greeting_with_last_purchase.sql

CREATE FUNCTION Greeting AS 'greeting_with_last_purchase.js';

CREATE VIEW Visits(name) AS VALUES ('Bob'), ('Alice'), ('Bob');
CREATE VIEW Purchases(customer, item) AS VALUES ('Alice', 'milk');

-- The inputs take turns row by row: Visits' Bob, Purchases' Alice (milk),
-- Visits' Alice (who has bought milk by then), Visits' Bob. Both key
-- columns, name and customer, carry the key on every row, whichever table
-- the row came from. STRING columns are 30 wide: long values are cut.
SELECT * FROM Greeting(TABLE Visits PARTITION BY name, TABLE Purchases PARTITION BY customer);

-- The same rows in full.
SET 'ptfsh.format' = 'rows';
SELECT * FROM Greeting(TABLE Visits PARTITION BY name, TABLE Purchases PARTITION BY customer);
