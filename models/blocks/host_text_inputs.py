"""The base of the encoders that read a batch's presented texts (pretrained Transformers):
their inputs are made on the host (`text_inputs`, called by `models.batch.prepare_batch`
before the batch moves) and arrive on the device with it, so a training step reads nothing
back (docs/design.md, section 6)."""

from __future__ import annotations

from torch import Tensor, nn

from models.batch import to_device


class HostTextInputs(nn.Module):
    """`forward` of a text encoder: its inputs as prepared on the host, else made here."""

    def text_inputs(self, texts: list[list[str]], num: int, fixed_shapes: bool = False) -> dict:
        raise NotImplementedError

    def from_inputs(self, inputs: dict, num: int) -> Tensor:
        raise NotImplementedError

    def forward(self, texts: list[list[str]] | dict, num: int) -> Tensor:
        """texts[b] = presented sentences of document b, or their `text_inputs` made on the
        host and moved with the batch -> (B, num, H), zeros at padding."""
        if not isinstance(texts, dict):
            device = next(self.parameters()).device
            texts = to_device(self.text_inputs(texts, num), device)
        return self.from_inputs(texts, num)
