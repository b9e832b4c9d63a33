"""The model families, one folder each (`<family>/`): the presets of one paper or idea, in a
module per preset named as the preset, their settings dataclass with the family's named
sizes (`settings.py`), the blocks only the family uses (`blocks/`), its YAMLs (`conf/`:
model configs, paper experiments, ablation variants; Hydra finds them by folder,
`benchmark/config/config_folders.py`) and its tests (`tests/`). The modules at a family's
top import no torch (what they build is imported inside the preset functions), so
`models.registry` lists every preset by importing them. A family imports the shared parts of
models/ and, one way, another family's settings (the pretrained-encoder families take
ATTOrderNet's paragraph encoder and decoder)."""
