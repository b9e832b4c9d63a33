"""The LightningModule and what fitting needs: checkpoints, loggers, guards, optimisation
(docs/architecture.md)."""
