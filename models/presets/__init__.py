"""`models.presets.<name>`: every registered preset by its name, the address the YAMLs give
as `net._target_` (a config names a preset, not the module it lives in, so moving a preset
between modules keeps its configs and config ids). The presets themselves live in their
family folders (models/families/<family>/, `models.registry`)."""


def __getattr__(name: str):
    """The registered preset `name`'s build function."""
    from models.registry import presets

    known = presets()
    if name in known:
        return known[name].build
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
