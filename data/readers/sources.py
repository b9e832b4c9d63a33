"""Where each published dataset comes from and how it must be laid out on disk: one
``DatasetSource`` row per dataset, the single place for these facts. Readers raise
``source.not_found(problem)`` for missing or mis-laid data; ``benchmark.datacard`` prints
the published split sizes next to the measured ones; ``docs/datasets.md`` is their long form.
"""

from __future__ import annotations

from dataclasses import dataclass


class DatasetNotFoundError(FileNotFoundError):
    """A dataset is missing or not laid out as published; the message says what to fetch,
    from where, and where to put it."""


@dataclass(frozen=True)
class DatasetSource:
    """Facts about one published dataset.

    ``layout`` is relative to ``dataset.path``; ``sizes`` are the split sizes (documents)
    reported by the papers that define the benchmark version of the dataset; a dataset
    published without a validation split lists none, and its ``train`` then covers our
    train + valid (the validation split is cut from the published training set).

    A row is read by ``dataset=<name>`` unless ``config`` names another dataset config
    (one config reading several published layouts of one corpus); ``options`` are the
    overrides that select this row's layout in that config (e.g.
    ``dataset.reader.layout=nseg``).
    """

    name: str
    paper: str
    published: str
    layout: str
    licence: str
    sizes: dict[str, int]
    config: str = ""
    options: str = ""

    @property
    def dataset(self) -> str:
        """The ``dataset=`` config that reads this row's data."""
        return self.config or self.name

    def run_with(self) -> str:
        """The overrides that read this dataset from a folder."""
        options = f" {self.options}" if self.options else ""
        return f"dataset={self.dataset}{options} dataset.path=/path/to/{self.name}"

    def not_found(self, problem: str) -> DatasetNotFoundError:
        return DatasetNotFoundError(
            f"{self.name}: {problem}\n"
            f"  expected layout under dataset.path: {self.layout}\n"
            f"  published: {self.published} ({self.paper})\n"
            f"  then run with {self.run_with()}"
        )


_LOGESWARAN = "Logeswaran, Lee & Radev 2018, Sentence Ordering and Coherence Modeling using RNNs"
_ON_REQUEST = "on request from the authors of Logeswaran et al. 2018 (no public download)"
_BARZILAY = "Barzilay & Lapata 2008, Modeling Local Coherence: An Entity-Based Approach"
_BARZILAY_PAGE = "Regina Barzilay's coherence data (MIT CSAIL), as used by Barzilay & Lapata 2008"
_ONE_SENTENCE_PER_LINE = "one article per file, one sentence per line"
_BARZILAY_LINES = (
    "(each line '<published id> <sentence>', the id is stripped; in the published archive "
    "layout, <article>.perm-1 with its permuted copies .perm-N beside it, only the .perm-1 "
    "files are articles; other folder names: dataset.reader.train_folder / test_folder)"
)

SOURCES: dict[str, DatasetSource] = {
    source.name: source
    for source in (
        DatasetSource(
            name="nips",
            paper=_LOGESWARAN,
            published=_ON_REQUEST,
            layout=(
                "split/2013le_papers, split/2014_papers, split/2015_papers (train/valid/test: "
                "one document name per line) and txt_tokenized/a<name>.txt (one sentence "
                "per line)"
            ),
            licence="NIPS proceedings abstracts; research use, terms of the authors",
            sizes={"train": 2448, "valid": 409, "test": 402},
            options="dataset.reader.layout=logeswaran",
        ),
        DatasetSource(
            name="nips_nseg",
            paper=(
                "Yin et al. 2019, Graph-based Neural Sentence Ordering (IJCAI); the NIPS "
                "abstracts of Logeswaran et al. 2018 as distributed with that code"
            ),
            published="https://github.com/DeepLearnXMU/NSEG (folder nips/)",
            layout=(
                "train.lower, val.lower, test.lower (one abstract per line, sentences joined "
                "by ' <eos> '; train.eg, val.eg, test.eg beside them are not read)"
            ),
            licence="NIPS proceedings abstracts; research use, terms of the authors",
            sizes={"train": 2427, "valid": 408, "test": 377},
            config="nips",
            options="dataset.reader.layout=nseg",
        ),
        DatasetSource(
            name="aan",
            paper=_LOGESWARAN,
            published=_ON_REQUEST,
            layout=(
                "split/train, split/valid, split/test (one document name per line) and "
                "txt_tokenized/<name> (one sentence per line)"
            ),
            licence="ACL Anthology Network abstracts; research use, terms of the authors",
            sizes={"train": 8569, "valid": 962, "test": 2626},
        ),
        DatasetSource(
            name="nsf",
            paper=_LOGESWARAN,
            published=_ON_REQUEST,
            layout=(
                "split/train, split/valid, split/test (one document name per line) and "
                "txt_tokenized/<name> (one sentence per line)"
            ),
            licence="NSF Research Award Abstracts 1990-2003 (UCI); research use",
            sizes={"train": 96070, "valid": 10185, "test": 21580},
        ),
        DatasetSource(
            name="arxiv",
            paper="Chen, Qiu & Huang 2016, Neural Sentence Ordering (arXiv:1607.06952)",
            published=(
                "http://nlp.fudan.edu.cn/data/ and the Google Drive folder linked from "
                "https://github.com/FudanNLP/NeuralSentenceOrdering"
            ),
            layout=(
                "train.txt, valid.txt, test.txt: documents separated by a blank line, each "
                "two header lines followed by one sentence per line"
            ),
            licence="arXiv abstracts; no licence stated by the release, research use",
            sizes={"train": 884912, "valid": 110614, "test": 110615},
        ),
        DatasetSource(
            name="sind",
            paper="Huang et al. 2016, Visual Storytelling (NAACL); SIND = VIST stories",
            published=(
                "https://visionandlanguage.net/VIST/dataset.html (the Stories of "
                "Images-in-Sequence annotations)"
            ),
            layout=(
                "train.story-in-sequence.json, val.story-in-sequence.json, "
                "test.story-in-sequence.json (directly or in sis/)"
            ),
            licence="VIST annotations, terms on the VIST page (Flickr images not needed)",
            sizes={"train": 40155, "valid": 4990, "test": 5055},
        ),
        DatasetSource(
            name="roc",
            paper=(
                "Mostafazadeh et al. 2016, A Corpus and Evaluation Framework for Deeper "
                "Understanding of Commonsense Stories (NAACL); split of Wang & Wan 2019"
            ),
            published="https://cs.rochester.edu/nlp/rocstories/ (free, request form)",
            layout=(
                "*.csv with columns storyid, storytitle, sentence1..sentence5 (the spring "
                "2016 and winter 2017 releases), or train.csv/valid.csv/test.csv with "
                "dataset.reader.split_files"
            ),
            licence="free for research, terms of the request form",
            sizes={"train": 78529, "valid": 9816, "test": 9817},
        ),
        DatasetSource(
            name="accident",
            paper=_BARZILAY,
            published=_BARZILAY_PAGE,
            layout=(
                f"train/ and test/ folders of NTSB accident reports, {_ONE_SENTENCE_PER_LINE} "
                f"{_BARZILAY_LINES}"
            ),
            licence="NTSB reports (US government); research use",
            sizes={"train": 100, "test": 100},
        ),
        DatasetSource(
            name="earthquake",
            paper=_BARZILAY,
            published=_BARZILAY_PAGE,
            layout=(
                f"train/ and test/ folders of AP earthquake articles, {_ONE_SENTENCE_PER_LINE} "
                f"{_BARZILAY_LINES}"
            ),
            licence="Associated Press articles; research use only",
            sizes={"train": 100, "test": 99},  # Cui et al. 2018, Table 2; two are identical
        ),
        DatasetSource(
            name="hf",
            paper="any dataset on the Hugging Face hub or on disk",
            published="https://huggingface.co/datasets, or your own datasets.save_to_disk folder",
            layout=(
                "a folder written by Dataset(Dict).save_to_disk, a folder of data files "
                "(json/csv/parquet), or a hub id; columns named by dataset.reader.*_column"
            ),
            licence="that of the dataset",
            sizes={},
        ),
    )
}
