"""Markers of the suite beyond pyproject's `slow`."""


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slurm: needs a SLURM cluster (`make slurm-test` stands one up, as root)"
    )
