# Runs a DuckDB form of a workload in the folder of its data (bench/run's
# duckdb engine; needs pip's duckdb):
#   python3 duckdb_run.py SCRIPT.sql [THREADS]
# THREADS (default 1, as ptfsh's one worker) bounds DuckDB's threads: on a
# shared machine its idle threads spin, and the CPU time they burn says
# nothing of the work.
import sys

import duckdb

con = duckdb.connect()
con.execute("SET threads = %d" % int(sys.argv[2] if len(sys.argv) > 2 else 1))
with open(sys.argv[1]) as f:
    con.execute(f.read())
