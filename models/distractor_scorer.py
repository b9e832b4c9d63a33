"""Which presented sentences look like distractors: lexical cohesion with the paragraph.

For the noise setting of Wang and Wan (2019), "Hierarchical Attention Networks for
Sentence Ordering" (AAAI), whose decoder leaves distractors out by pointing to END
(`models.end_candidate`). A distractor comes from another document, so it shares fewer
words with the other presented sentences than they share with each other: lexical
cohesion (Halliday and Hasan 1976; Barzilay and Lapata 2008 use entity repetition across
sentences for coherence). On Brown's validation split under `noise=1`, the sentence
sharing the smallest share of its words with the others is the distractor in 50% of
documents (56% with IDF weights; dropping one at random: about 1 in 7), while the pointer
decoders alone left out exactly the distractor in 16-17% of test documents
(docs/metrics.md). This scorer gives that evidence to every preset.

Per presented sentence i, with `present[t]` = word t of i occurs in another presented
sentence of the same document (exact word id; `<pad>`/`<unk>` never count):
- overlap: the mean of `present` weighted by a learned salience softplus(w . x_t) of each
  word vector x_t (rare content words should count more than "the"), and unweighted;
- both minus their mean over the document's sentences (the distractor is the outlier);
- log of the number of words;
plus a linear read of the paragraph encoder's context of i. A small MLP maps these to a
logit d_i: how likely sentence i is a distractor. Models without word vectors (a
pretrained text encoder) weight every word alike.

The logits enter the decoder's scores (`models.end_candidate.DistractorAwareEnd`) and an
auxiliary loss (`OrderingModel.loss`), since a training document's distractors are known
(the presented sentences missing from its gold order).
"""

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from models.masked_ops import length_mask

FIRST_WORD_ID = 2  # ids 0 and 1 are <pad> and <unk> (data/vocab.py): they never match
N_FEATURES = 5
PRIOR_LOGIT = -2.0  # initial d_i: a distractor probability of about 0.12 (1 in 7 to 8)


class DistractorScorer(nn.Module):
    def __init__(
        self,
        context_dim: int,  # width of the paragraph encoder's contexts
        word_dim: int | None,  # width of the word vectors; None: uniform word weights
        hidden_dim: int = 16,
    ):
        super().__init__()
        self.salience = nn.Linear(word_dim, 1) if word_dim else None
        self.features = nn.Sequential(
            nn.Linear(N_FEATURES, hidden_dim), nn.Tanh(), nn.Linear(hidden_dim, 1)
        )
        self.context = nn.Linear(context_dim, 1, bias=False)
        nn.init.zeros_(self.context.weight)
        nn.init.constant_(self.features[-1].bias, PRIOR_LOGIT)

    def forward(
        self,
        tokens: Tensor,  # (B, N, T) word ids of the presented sentences
        lengths: Tensor,  # (B, N) words per sentence (0: padding sentence)
        mask: Tensor,  # (B, N) real sentences
        contexts: Tensor,  # (B, N, h) paragraph encoder outputs
        words: Tensor | None,  # (B, N, T, e) word vectors, or None
    ) -> Tensor:
        """-> distractor logits (B, N), zeros at padding sentences."""
        tokens = tokens[:, :, : max(int(lengths.max()), 1)]  # (B, N, T')
        in_sentence = length_mask(lengths, tokens.shape[-1])  # (B, N, T')
        weights = in_sentence.to(contexts.dtype)
        present = shared_words(tokens, in_sentence).to(weights.dtype)  # (B, N, T')
        if self.salience is not None and words is not None:
            salience = F.softplus(self.salience(words[:, :, : tokens.shape[-1]])).squeeze(-1)
            weighted = weights * salience  # (B, N, T')
        else:
            weighted = weights
        overlaps = torch.stack(
            [_weighted_mean(present, weighted), _weighted_mean(present, weights)], dim=-1
        )  # (B, N, 2)
        real = mask.unsqueeze(-1).to(overlaps.dtype)  # (B, N, 1)
        document_mean = (overlaps * real).sum(1, keepdim=True) / real.sum(1, keepdim=True).clamp(
            min=1.0
        )  # (B, 1, 2)
        size = torch.log1p(lengths.to(overlaps.dtype)).unsqueeze(-1)  # (B, N, 1)
        features = torch.cat([overlaps, overlaps - document_mean, size], dim=-1)  # (B, N, 5)
        logits = self.features(features).squeeze(-1) + self.context(contexts).squeeze(-1)
        return logits.masked_fill(~mask, 0.0)  # (B, N)


def shared_words(tokens: Tensor, in_sentence: Tensor) -> Tensor:
    """tokens (B, N, T), in_sentence (B, N, T) -> (B, N, T) bool: True where the word also
    occurs in another sentence of the same document (never for padding and <unk>)."""
    batch, num, length = tokens.shape
    usable = in_sentence & (tokens >= FIRST_WORD_ID)  # (B, N, T)
    flat = tokens.reshape(batch, num * length)  # (B, NT)
    usable_flat = usable.reshape(batch, num * length)
    same = flat.unsqueeze(2) == flat.unsqueeze(1)  # (B, NT, NT)
    same &= usable_flat.unsqueeze(2) & usable_flat.unsqueeze(1)
    sentence = torch.arange(num, device=tokens.device).repeat_interleave(length)  # (NT,)
    same &= sentence.unsqueeze(1) != sentence.unsqueeze(0)  # other sentences only
    return same.any(dim=2).view(batch, num, length)


def _weighted_mean(values: Tensor, weights: Tensor) -> Tensor:
    """values, weights (B, N, T) -> (B, N): sum(w * v) / sum(w), 0 for an empty row."""
    return (values * weights).sum(-1) / weights.sum(-1).clamp(min=1e-6)
