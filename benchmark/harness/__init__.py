"""OrderBench harness: what every run uses: the LightningModule, building and running a
job, run planning, checkpoints, locks, loggers, config resolvers and checks."""
