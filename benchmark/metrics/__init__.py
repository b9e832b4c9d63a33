"""OrderBench metrics: per-document order and noise metrics, breakdowns, order discrimination."""
