"""The random orderer (`random`): the floor every table is read against, and its YAML."""
