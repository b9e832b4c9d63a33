"""Which presented sentences look like distractors: cohesion with the paragraph.

An option of the noise setting of our own (`models.noise.noise_wrapper`, `distractor_scorer`;
neither in Wang and Wan 2019 nor in their released code). A distractor comes from another
document, so it shares fewer words with the other presented sentences than they share
with each other (lexical cohesion: Halliday and Hasan 1976; entity repetition, Barzilay
and Lapata 2008) and is about something else (topical similarity of averaged word vectors,
Foltz et al. 1998). Why these features and their measured effect: docs/metrics.md,
"Noise robustness".

Per presented sentence i, with `present[t]` = word t of i occurs in another presented
sentence of the same document (exact word id; ids below `first_word_id` never count), and
each word's salience = its rarity log(rank) (the vocabulary lists words by descending
frequency, so by Zipf's law log(rank) is an inverse document frequency up to a constant;
special words get 0) times a learned softplus(w . x_t) of its word vector x_t (1 at
initialisation), and the topic vector of i = the salience-weighted mean of its word vectors:
- overlap: the mean of `present`, salience-weighted and unweighted;
- topic: the cosine of i's topic vector with the mean of the other sentences' and with
  the closest other sentence's;
- each of these four raw, minus its mean over the document's sentences and divided by
  their standard deviation too (the distractor is the outlier of its document);
- log of the number of words and of the document's sentences;
plus a linear read of the paragraph encoder's context of i. A small MLP maps these to a
logit d_i, and a learned d_none stands for "no distractor": a softmax over the document's
sentences and none says which one is its distractor (the noise settings give a document
at most one). Models without word vectors (a pretrained text encoder) weight words by
rarity alone and take their sentence vectors as topic vectors.
"""

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from models.blocks.masked_ops import length_mask, masked_mean

N_COHESION = 4  # weighted and plain word overlap, topic similarity to the rest and to the closest
N_FEATURES = 3 * N_COHESION + 2  # each raw, minus the document mean, z-scored; length, size
PRIOR_LOGIT = -2.0  # initial d_i; with d_none = 0, about 1 in 8 per sentence
NONE_LOGIT = 0.0  # initial d_none: about even odds of no distractor in a paragraph of 7
MIN_SPREAD = 1e-3  # z-scores divide by the document's standard deviation, at least this


class DistractorScorer(nn.Module):
    def __init__(
        self,
        context_dim: int,  # width of the paragraph encoder's contexts
        word_dim: int | None,  # width of the word vectors; None: rarity weights only
        first_word_id: int,  # vocabulary id of the most frequent word (below: special words)
        hidden_dim: int = 32,
    ):
        super().__init__()
        self.first_word_id = first_word_id
        self.salience = nn.Linear(word_dim, 1) if word_dim else None
        if self.salience is not None:  # starts at 1: the salience is the rarity alone
            nn.init.zeros_(self.salience.weight)
            nn.init.constant_(self.salience.bias, math.log(math.e - 1))
        self.features = nn.Sequential(
            nn.Linear(N_FEATURES, hidden_dim), nn.Tanh(), nn.Linear(hidden_dim, 1)
        )
        self.context = nn.Linear(context_dim, 1, bias=False)
        nn.init.zeros_(self.context.weight)
        nn.init.constant_(self.features[-1].bias, PRIOR_LOGIT)
        self.none = nn.Parameter(torch.tensor(NONE_LOGIT))

    def forward(
        self,
        tokens: Tensor,  # (B, N, T) word ids of the presented sentences
        lengths: Tensor,  # (B, N) words per sentence (0: padding sentence)
        mask: Tensor,  # (B, N) real sentences
        contexts: Tensor,  # (B, N, h) paragraph encoder outputs
        words: Tensor | None,  # (B, N, T, e) word vectors, or None
        sentences: Tensor,  # (B, N, d) sentence vectors (topic vectors without words)
    ) -> Tensor:
        """-> logits (B, N + 1) of which presented sentence is the distractor (zeros at
        padding sentences), and last, of none being one."""
        tokens = tokens[:, :, : max(int(lengths.max()), 1)]  # (B, N, T')
        weights = length_mask(lengths, tokens.shape[-1]).to(contexts.dtype)  # (B, N, T')
        present = shared_words(tokens, weights > 0, self.first_word_id).to(weights.dtype)
        rank = (tokens - self.first_word_id + 2).clamp(min=1)  # (B, N, T') 2, 3, ...; 1: special
        rarity = torch.log(rank.to(weights.dtype))  # (B, N, T') log rank, 0 for special words
        salient = weights * rarity  # (B, N, T')
        if self.salience is not None and words is not None:
            words = words[:, :, : tokens.shape[-1]]  # (B, N, T', e)
            salient = salient * F.softplus(self.salience(words)).squeeze(-1)
            topics = (words * salient.unsqueeze(-1)).sum(2) / salient.sum(2, keepdim=True).clamp(
                min=1e-6
            )  # (B, N, e) salience-weighted mean word vector
        else:
            topics = sentences
        cohesion = torch.stack(
            [
                _weighted_mean(present, salient),
                _weighted_mean(present, weights),
                *topic_similarities(topics.to(weights.dtype), mask),
            ],
            dim=-1,
        )  # (B, N, 4)
        centred, z_scores = document_relative(cohesion, mask)
        size = mask.sum(1, keepdim=True).expand_as(mask).to(cohesion.dtype)  # (B, N)
        shape = torch.stack([torch.log1p(lengths.to(cohesion.dtype)), torch.log(size)], -1)
        features = torch.cat([cohesion, centred, z_scores, shape], dim=-1)  # (B, N, 14)
        logits = self.features(features).squeeze(-1) + self.context(contexts).squeeze(-1)
        none = self.none.to(logits.dtype).expand(len(logits), 1)  # (B, 1)
        return torch.cat([logits.masked_fill(~mask, 0.0), none], dim=1)  # (B, N + 1)


def distractor_loss(logits: Tensor, classes: Tensor, mask: Tensor) -> Tensor:
    """logits (B, N + 1) from `DistractorScorer`, the true class of each document (B,)
    (the distractor's index, or N for none) and the real sentences (B, N) -> the
    cross-entropy of each document (B,) over its real sentences and none."""
    allowed = F.pad(mask, (0, 1), value=True)  # (B, N + 1)
    logits = logits.float().masked_fill(~allowed, -math.inf)
    return F.cross_entropy(logits, classes, reduction="none")


def shared_words(tokens: Tensor, in_sentence: Tensor, first_word_id: int) -> Tensor:
    """tokens (B, N, T), in_sentence (B, N, T) -> (B, N, T) bool: True where the word also
    occurs in another sentence of the same document (never for ids below first_word_id)."""
    batch, num, length = tokens.shape
    usable = in_sentence & (tokens >= first_word_id)  # (B, N, T)
    flat = tokens.reshape(batch, num * length)  # (B, NT)
    usable_flat = usable.reshape(batch, num * length)
    same = flat.unsqueeze(2) == flat.unsqueeze(1)  # (B, NT, NT)
    same &= usable_flat.unsqueeze(2) & usable_flat.unsqueeze(1)
    sentence = torch.arange(num, device=tokens.device).repeat_interleave(length)  # (NT,)
    same &= sentence.unsqueeze(1) != sentence.unsqueeze(0)  # other sentences only
    return same.any(dim=2).view(batch, num, length)


def topic_similarities(topics: Tensor, mask: Tensor) -> tuple[Tensor, Tensor]:
    """topics (B, N, e), mask (B, N) -> cosine of each sentence's topic vector with the mean
    of the other real sentences' (B, N), and with its closest other real sentence's (B, N);
    0 where a document has no other sentence."""
    real = mask.unsqueeze(-1).to(topics.dtype)  # (B, N, 1)
    total = (topics * real).sum(1, keepdim=True)  # (B, 1, e)
    rest = (total - topics * real) / (real.sum(1, keepdim=True) - 1).clamp(min=1)  # (B, N, e)
    to_rest = F.cosine_similarity(topics, rest, dim=-1, eps=1e-6)  # (B, N)
    unit = F.normalize(topics, dim=-1, eps=1e-6)
    pairs = unit @ unit.transpose(1, 2)  # (B, N, N)
    others = mask.unsqueeze(1) & ~torch.eye(mask.shape[1], dtype=torch.bool, device=mask.device)
    closest = pairs.masked_fill(~others, -math.inf).amax(-1)  # (B, N)
    closest = torch.where(others.any(-1), closest, torch.zeros_like(closest))
    return to_rest * mask, closest * mask


def document_relative(values: Tensor, mask: Tensor) -> tuple[Tensor, Tensor]:
    """values (B, N, K), mask (B, N) -> values minus their mean over the document's real
    sentences, and those divided by the document's standard deviation (at least
    MIN_SPREAD) (B, N, K) each: the distractor is the outlier of its document."""
    mean = masked_mean(values, mask).unsqueeze(1)  # (B, 1, K)
    centred = (values - mean) * mask.unsqueeze(-1)  # (B, N, K)
    variance = masked_mean(centred**2, mask).clamp(min=MIN_SPREAD**2)  # (B, K)
    spread = variance.sqrt().unsqueeze(1)  # (B, 1, K)
    return centred, centred / spread


def _weighted_mean(values: Tensor, weights: Tensor) -> Tensor:
    """values, weights (B, N, T) -> (B, N): sum(w * v) / sum(w), 0 for an empty row."""
    return (values * weights).sum(-1) / weights.sum(-1).clamp(min=1e-6)
