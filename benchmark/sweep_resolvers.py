"""OmegaConf resolvers that tie the launcher's resources to the trainer profile
(`conf/hydra/launcher/*.yaml`):

- `${tasks_per_node:${trainer.devices}}`: one task (process) per device;
- `${gpus_per_node:${trainer.accelerator},${trainer.devices}}`: as many GPUs, or none for
  a CPU profile.
"""

from __future__ import annotations

from omegaconf import OmegaConf

GPU_ACCELERATORS = ("gpu", "cuda")


def tasks_per_node(devices) -> int:
    """`trainer.devices` as a task count; the launcher needs a number, not `auto` or a list."""
    if isinstance(devices, bool) or not isinstance(devices, int) or devices < 1:
        raise ValueError(
            f"trainer.devices must be a positive integer for the sweep launcher to reserve "
            f"one task per device, got {devices!r}"
        )
    return devices


def gpus_per_node(accelerator: str, devices) -> int | None:
    """GPUs to reserve per node: `trainer.devices` for a GPU profile, None otherwise."""
    return tasks_per_node(devices) if accelerator in GPU_ACCELERATORS else None


def register_resolvers() -> None:
    """Make the resolvers known to OmegaConf (idempotent)."""
    for name, resolver in (("tasks_per_node", tasks_per_node), ("gpus_per_node", gpus_per_node)):
        if not OmegaConf.has_resolver(name):
            OmegaConf.register_new_resolver(name, resolver)
