"""The lifecycle of one launch: plan, folder, lock, stages, finished runs
(docs/architecture.md)."""
