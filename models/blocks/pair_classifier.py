"""Sentence-pair order classifier: does sentence a come before sentence b?

B-TSort (Prabhumoye, Salakhutdinov and Black 2020, "Topological Sort for Sentence
Ordering") fine-tunes BERT on the pair "[CLS] a [SEP] b [SEP]" (a cross-encoder); its
L-TSort variant and this block encode each sentence on its own and classify the pair
from the two vectors. Ours: an MLP over [a; b; a - b; a * b] (the matching features of
Mou et al. 2016 / InferSent), one tanh hidden layer, one logit z(a, b); P(a before b) =
sigmoid(z(a, b)). z is not antisymmetric by construction: z(a, b) and z(b, a) are two
predictions, as for B-TSort's classifier.
"""

import torch
from torch import Tensor, nn


class PairOrderClassifier(nn.Module):
    def __init__(
        self,
        input_dim: int,  # sentence vector width
        hidden_dim: int,  # MLP hidden units
        dropout: float = 0.0,  # on the pair features
    ):
        super().__init__()
        self.mlp = nn.Sequential(
            nn.Dropout(dropout),
            nn.Linear(4 * input_dim, hidden_dim),
            nn.Tanh(),
            nn.Linear(hidden_dim, 1),
        )

    def forward(self, sentences: Tensor) -> Tensor:
        """sentences (B, N, d) -> logits (B, N, N): [b, i, j] = z(sentence i, sentence j)."""
        num = sentences.shape[1]
        first = sentences.unsqueeze(2).expand(-1, -1, num, -1)  # (B, N, N, d) a = row i
        second = sentences.unsqueeze(1).expand(-1, num, -1, -1)  # (B, N, N, d) b = col j
        features = torch.cat([first, second, first - second, first * second], dim=-1)
        return self.mlp(features).squeeze(-1)  # (B, N, N)
