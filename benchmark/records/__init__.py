"""OrderBench records: run records, prediction files, run collections and atomic writes."""
