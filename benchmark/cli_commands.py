"""The declarations of the `orderbench` commands of benchmark/ and models/: each command's
keys, their defaults and one-line help (`benchmark.cli_arguments.Command`), from which its
usage line, its `--help` and its parser come.

They live apart from the tools, and import nothing but the standard library, so that
`orderbench <command> --help` answers at once: the tools themselves load numpy, pandas,
matplotlib, PyTorch or Hydra. Each tool parses its arguments with its declaration here, so
`python -m benchmark.<tool>` and `orderbench <command>` parse alike. A study declares its
own commands in its package (`studies/<name>/__init__.py`: `COMMAND`, or `COMMANDS` for
several).
"""

from __future__ import annotations

from pathlib import Path

from benchmark.cli_arguments import Command, Key

PAIRED_RESAMPLES = 10_000  # resamples of the paired tests (compare, leaderboard)
REPORTS_DIR = "reports"  # the reports' default folder, inside the runs folder
SPLITS = ("valid", "test")  # the evaluated splits (data.ordering_data.EVAL_SPLITS)
PRECISIONS = ("32", "bf16")  # benchmark.bench.timing.PRECISIONS
DEVICES = ("cpu", "cuda")
ENCODER_SHAPES = ("minilm", "bert-base")  # benchmark.bench.shaped_encoder.SHAPES
PAPER_EXPERIMENTS = (  # the paper-size presets, models/families/*/conf/experiment/*_paper.yaml
    "attordernet_paper", "attordernet_att_paper", "attordernet_cnn_paper",
    "lstm_ptrnet_paper", "cnn_ptrnet_paper", "han_paper",
)  # fmt: skip
HYDRA_OVERRIDES = "any other config key or group, as for `orderbench train` (its --help)"


def report_dir(runs: Path, out: Path | None, sub: str = "") -> Path:
    """Where a report goes: `out` when given, else `<runs>/reports[/sub]`, so that a report
    never replaces the committed `results/` unless asked to (`out=results`)."""
    if out is not None:
        return out
    return runs / REPORTS_DIR / sub if sub else runs / REPORTS_DIR


def _flag(name: str, help: str, default: bool = False) -> Key:
    return Key(name, help, default, kind="bool")


def _count(name: str, help: str, default: int | None, minimum: int = 1, **more) -> Key:
    return Key(name, help, default, kind="int", minimum=minimum, **more)


INCLUDE_TRIVIAL = _flag(
    "include_trivial", "count one-sentence documents as perfect (default: leave them out)"
)
RUNS = Key("runs", "the runs folder", "runs", metavar="DIR")
WANDB = _flag("wandb", "also log to W&B (offline unless WANDB_MODE says otherwise)")

TRAIN = Command(
    "train", "train and test one run (Hydra overrides; -m: a sweep)",
    target="benchmark.train:main", call="hydra",
)  # its help is benchmark.train_help: the config groups of conf/
EVALUATE = Command(
    "evaluate", "re-score a finished run from its checkpoint: task=order|discrimination",
    (
        Key("run", "the run directory", positional=True, required=True, metavar="RUN_DIR"),
        Key("task", "decode and score the split again, or order discrimination",
            kind="choice", choices=("order", "discrimination"), required=True),
        Key("split", "the split to evaluate", "test", kind="choice", choices=SPLITS),
        _count("beam", "task=order: the beam width", None, metavar="K",
               shown="the run's test beam"),
        Key("predictions", "task=order: also write the predictions to FILE, outside the run "
            "directory", metavar="FILE"),
        _count("protocol_seed", "task=order: present the split as protocol seed N does (another "
               "fixed shuffle of every document)", None, minimum=0, shown="the run's own"),
        _count("max_tokens", "task=order, a model reading the joined paragraph (paragraph_*): "
               "cut that input to N positions and report the documents cut apart", None,
               minimum=3, shown="the run's own"),
        _count("max_permutations", "task=discrimination: permutations per document", 20),
    ),
    "benchmark.evaluate:main",
)  # fmt: skip
SCORE = Command(
    "score", "score a predictions.jsonl file with the suite's metrics",
    (
        Key("predictions", "the predictions.jsonl to score", positional=True, required=True,
            metavar="FILE"),
        INCLUDE_TRIVIAL,
        _count("bootstrap", "add 95% bootstrap intervals over documents from N resamples "
               "(0: none)", 0, minimum=0),
        _count("seed", "bootstrap seed", 0, minimum=0),
        _flag("breakdowns", "add the figures by paragraph length and by categorical meta field"),
    ),
    "benchmark.score:main",
)  # fmt: skip
COMPARE = Command(
    "compare", "paired comparison of two runs on the same test documents",
    (
        Key("run_a", "run directory, predictions.jsonl or row directory of seeds (A)",
            positional=True, required=True, metavar="RUN_A"),
        Key("run_b", "the same for B", positional=True, required=True, metavar="RUN_B"),
        INCLUDE_TRIVIAL,
        _count("resamples", "bootstrap resamples and sign flips", PAIRED_RESAMPLES),
        _count("seed", "resampling seed", 0, minimum=0),
        _flag("json", "print one JSON object instead of the table"),
    ),
    "benchmark.compare:main",
)  # fmt: skip
PREDICT = Command(
    "predict", "order your own sentences with a trained run",
    (
        Key("run", "the run directory", positional=True, required=True, metavar="RUN_DIR"),
        Key("input", "a UTF-8 file of sentences (-: standard input)", positional=True,
            required=True, metavar="FILE"),
        _count("beam", "the beam width", None, metavar="K", shown="the run's test beam"),
        Key("split", "one sentence per line, raw text, or as the input looks", "auto",
            kind="choice", choices=("auto", "lines", "text")),
    ),
    "benchmark.predict:main",
)  # fmt: skip
LEADERBOARD = Command(
    "leaderboard", "leaderboard.csv and .md of the finished runs",
    (
        RUNS,
        Key("out", "the output folder (out=results replaces the committed leaderboard)",
            metavar="DIR", shown=f"RUNS/{REPORTS_DIR}"),
        _count("resamples", "resamples of the paired test", PAIRED_RESAMPLES),
        _count("seed", "paired-test seed", 0, minimum=0),
        Key("reference", "the reference row of every dataset, fixed before any test figure "
            "is read", metavar="PRESET[/VARIANT]", shown="the base row with the best valid tau"),
        WANDB,
    ),
    "benchmark.report.leaderboard:main",
)  # fmt: skip
PLOTS = Command(
    "plots", "result plots (PNG) of the finished runs",
    (
        RUNS,
        Key("out", "the output folder (out=results/plots replaces the committed plots)",
            metavar="DIR", shown=f"RUNS/{REPORTS_DIR}/plots"),
        WANDB,
    ),
    "benchmark.report.plots:main",
)  # fmt: skip
ARCHIVE = Command(
    "archive", "copy the finished runs' records and predictions to a folder that outlives "
    "the machine (the reports read it as a runs folder; copied back into a runs folder, a "
    "relaunched sweep skips them)",
    (
        Key("runs", "the runs folder", positional=True, required=True, metavar="RUNS_DIR"),
        Key("out", "the archive: each run at its path below RUNS_DIR", positional=True,
            required=True, metavar="OUT_DIR"),
    ),
    "benchmark.report.archive:main",
)  # fmt: skip

SITE_TEXT = ("shareable", "all", "none")  # the text policies (benchmark.report.site_documents)
SITE = Command(
    "site", "a static results site of the finished runs (HTML, no server, no network): a "
    "page per corpus and per run",
    (
        RUNS,
        Key("out", "the site's folder (out=results/site replaces the committed site)",
            metavar="DIR", shown=f"RUNS/{REPORTS_DIR}/site"),
        Key("reference", "the reference row of each corpus's tables, fixed before any test "
            "figure is read; DATASET: names the corpus it is for", [], kind="list",
            metavar="[DATASET:]PRESET[/VARIANT],...",
            shown="the base row with the best valid tau"),
        Key("text", "the documents' sentences: shareable, those of corpora whose reader may "
            "publish them (Brown); all, every corpus at hand (a site kept to yourself); none",
            "shareable", kind="choice", choices=SITE_TEXT),
        _count("resamples", "resamples of the paired test", PAIRED_RESAMPLES),
        _count("seed", "paired-test seed", 0, minimum=0),
    ),
    "benchmark.report.site:main",
)  # fmt: skip

PRESENTATION = Command(
    "presentation", "how much each row's test figures move under other presentations of "
    "its test documents (decodes the runs that read the presented order)",
    (
        RUNS,
        Key("out", "the output folder: presentation.csv (figures kept there are reused) and "
            "presentation.md", metavar="DIR", shown=f"RUNS/{REPORTS_DIR}"),
        _count("presentations", "other fixed shuffles of the test documents per run", 5),
    ),
    "benchmark.presentation:main",
)  # fmt: skip

# -- bench: the suite's sizes, full and quick (`quick=true`: tiny sizes for tests) ------------
FULL = {
    "steps": 10, "warmup": 2, "beams": "1,4,16,64", "lengths": "5,10,20,40", "length": 10,
    "docs": 16, "decode_docs": 256, "reference_docs": 8, "repeats": 3,
    "paper_experiments": list(PAPER_EXPERIMENTS), "paper_steps": 6, "paper_repeats": 3,
}  # fmt: skip
QUICK = {
    "steps": 2, "warmup": 1, "beams": "1,3", "lengths": "3,4", "length": 4, "docs": 2,
    "decode_docs": 4, "reference_docs": 2, "repeats": 1,
    "paper_experiments": ["lstm_ptrnet_paper"], "paper_steps": 1, "paper_repeats": 1,
}  # fmt: skip


PAPER_SHOWN = "the six *_paper experiments"


def _sized(name: str, help: str, kind: str = "int", minimum: int = 1, metavar: str = "") -> Key:
    """A key whose default depends on `quick` (FULL, QUICK)."""
    full, quick = (PAPER_SHOWN if v == list(PAPER_EXPERIMENTS) else
                   ",".join(v) if isinstance(v, list) else v
                   for v in (FULL[name], QUICK[name]))  # fmt: skip
    minimum = minimum if kind == "int" else None
    return Key(name, help, kind=kind, minimum=minimum, metavar=metavar,
               shown=f"{full}; quick: {quick}")


BENCH = Command(
    "bench", "measured throughput of every preset (the speed suite)",
    (
        Key("presets", "the presets", kind="list",
            shown="every models/families/*/conf/model/*.yaml"),
        Key("dataset", "conf/dataset name for training and the test sample", "brown",
            metavar="NAME"),
        Key("device", "the device", kind="choice", choices=DEVICES, shown="cuda if available"),
        Key("precision", "32, or bf16 autocast", "32", kind="choice", choices=PRECISIONS),
        _count("threads", "PyTorch threads", None,
               shown="the config's cpu_threads, else PyTorch's default"),
        _sized("steps", "timed training steps"),
        _sized("warmup", "untimed training steps", minimum=0),
        _sized("beams", "beam widths, increasing", kind="text", metavar="K,K"),
        _sized("lengths", "synthetic paragraph lengths at the widest beam, increasing",
               kind="text", metavar="N,N"),
        _sized("length", "paragraph length of the beam scaling and the reference"),
        _sized("docs", "synthetic paragraphs per timed batch"),
        _sized("decode_docs", "test documents for decoding throughput"),
        _sized("reference_docs", "documents per reference check"),
        _sized("repeats", "timed calls per decoding figure (median)"),
        Key("out", "the record", metavar="FILE",
            shown="results/bench/<device>.json; quick: results/bench/<device>-quick.json"),
        _flag("quick", "tiny sizes, for tests and smoke checks"),
        _flag("isolate", "each preset in a fresh process", True),
        _flag("paper", "the paper-size training comparison", True),
        _sized("paper_experiments", "conf/experiment names of the comparison", kind="list"),
        _sized("paper_steps", "training batches per path"),
        _sized("paper_repeats", "repeats (median)"),
        _count("paper_threads", "PyTorch threads of the paper-size comparison", 1),
        _flag("paper_compile", "also the fast paths with the compiled update (`compile`)"),
        _flag("cuda_graphs", "train as `cuda_graphs=true` does: bucketed batches, CUDA graphs "
              "on a GPU"),
        Key("encoder_shape", "the pretrained-encoder presets with an encoder of this shape and "
            "random weights, built with the tokenizer of model.net.encoder (else the bundled "
            "encoder's): a step's cost where the weights are not at hand", kind="choice",
            choices=ENCODER_SHAPES, shown="the encoder itself"),
    ),
    "benchmark.bench.suite:main",
    overrides="config overrides for every preset, after model= and dataset=: dotted keys, "
              "or groups added with +, e.g. +experiment=attordernet_paper (the published "
              "sizes) +reproduce=nips model.embeddings=FILE",
)  # fmt: skip
BENCH_PROFILE = Command(
    "bench profile", "where the training time of the paper-size presets goes",
    (
        Key("experiments", "conf/experiment names", list(PAPER_EXPERIMENTS), kind="list",
            shown=PAPER_SHOWN),
        Key("path", "a JSONL dataset directory", metavar="DIR",
            shown="NIPS-like synthetic documents"),
        _count("train_batches", "training batches profiled, evenly spread; 0: the whole epoch",
               0, minimum=0),
        _count("val_batches", "validation batches profiled; 0: the whole validation split", 0,
               minimum=0),
        _count("plain_batches", "training batches also run as plain steps", 8, minimum=0),
        _count("flop_batches", "training batches whose FLOPs are counted", 4, minimum=0),
        _count("threads", "PyTorch threads", 1),
        Key("device", "the device", "cpu", kind="choice", choices=DEVICES),
        Key("precision", "32, or bf16 autocast", "32", kind="choice", choices=PRECISIONS),
        _flag("reference", "the reference compute paths (models.compute_paths)"),
        _count("seed", "seed of the synthetic documents and of the model", 0, minimum=0),
        Key("scale", "NIPS-like split sizes times this, in (0, 1] (tests: smaller)", "1",
            metavar="X"),
        Key("out", "the record", metavar="FILE", shown="results/bench/profile-<device>.json"),
    ),
    "benchmark.bench.profile:main",
)  # fmt: skip
BENCH_COMPILE = Command(
    "bench compile", "how much of each preset's training step the compiler takes whole: "
    "graphs, breaks, recompilations, host syncs, operators, compiled against eager seconds",
    (
        Key("targets", "presets (their model YAMLs) and *_paper experiments",
            kind="list", shown="every trained preset and *_paper experiment"),
        _count("steps", "training batches of the first epoch run eager and compiled", 50),
        _flag("compiled", "also the steps compiled by inductor (false: graphs, breaks, syncs "
              "and operators only)", True),
        Key("nips", "the NIPS abstracts (SE-Graph layout)", metavar="DIR",
            shown="$ORDERBENCH_DATASETS/nips_nseg, else NIPS-like synthetic ones"),
        _count("threads", "PyTorch threads", 1),
        _count("seed", "seed of the model and of the batches", 0, minimum=0),
        _flag("isolate", "each target in a fresh process", True),
        Key("out", "the record", metavar="FILE", shown="results/bench/compile-<date>.json"),
    ),
    "benchmark.bench.compile:main",
)  # fmt: skip
BENCH_TSORT = Command(
    "bench tsort", "cost of the pairwise decoders (topological sort, win sums) against n",
    (
        Key("lengths", "numbers of sentences n, increasing", "5,10,20,50,100", metavar="N,N"),
        _count("repeats", "timed calls per figure (median)", 3),
        _count("seed", "seed of the synthetic precedence matrices", 0, minimum=0),
    ),
    "benchmark.bench.tsort:main",
)  # fmt: skip
BENCH_ENCODER = Command(
    "bench encoder", "a pretrained paragraph encoder's training step on real NIPS batches: "
    "today's path, length bucketing by tokens, bf16 autocast, with ratios",
    (
        Key("encoders", "model.net.encoder names (registered: minilm, mpnet; or folders)",
            ["minilm", "mpnet"], kind="list", metavar="A,B"),
        Key("nips", "the NIPS abstracts (nseg layout, e.g. $ORDERBENCH_DATASETS/nips_nseg; or "
            "train/valid/test.jsonl)",
            required=True, metavar="DIR"),
        Key("preset", "the paragraph preset", "paragraph_ptrnet", metavar="NAME"),
        Key("precisions", "32 and/or bf16", kind="list", metavar="32,bf16",
            shown="32, and bf16 where the CPU has bf16 instructions"),
        _count("steps", "timed training steps of each path", 8),
        _count("warmup", "untimed steps before them", 2, minimum=0),
        _count("threads", "PyTorch threads", None, shown="PyTorch's default"),
        _count("seed", "initial weights and the epoch's batches", 0, minimum=0),
        _flag("compiled", "also the last path with its loss compiled as compile=true trains "
              "it (inductor; minutes of compiling)", False),
        Key("out", "also write the rows as JSON to FILE", metavar="FILE"),
    ),
    "benchmark.bench.encoder_cost:main", call="keys",
)  # fmt: skip
BENCH_ENCODER_MEMORY = Command(
    "bench encoder-memory", "peak memory of a pretrained paragraph encoder's training steps "
    "under settings of glibc's allocator and oneDNN's cache, each in its own process",
    (
        Key("nips", "the NIPS abstracts (nseg layout, or train/valid/test.jsonl)",
            required=True, metavar="DIR"),
        Key("encoder", "a model.net.encoder name or folder", "mpnet", metavar="NAME"),
        Key("settings", "default, onednn16, onednn16_mmap8m, mmap128k, bounded", kind="list",
            metavar="A,B", shown="all five"),
        Key("preset", "the paragraph preset", "paragraph_ptrnet", metavar="NAME"),
        _count("steps", "training steps in each process (the epoch's first batches)", 30),
        _count("threads", "PyTorch threads", 1),
        _count("seed", "initial weights and the epoch's batches", 0, minimum=0),
        Key("out", "also write the rows as JSON to FILE", metavar="FILE"),
    ),
    "benchmark.bench.encoder_memory:main", call="keys",
)  # fmt: skip
BENCH_SCALE = Command(
    "bench scale", "memory and time of preparing and training on corpora of growing size",
    (
        Key("sizes", "documents per synthetic corpus shaped like abstracts",
            ["100000", "400000", "1100000"], kind="list", metavar="N,N"),
        _count("steps", "training steps of each training process", 200),
        _count("seed", "seed of the corpora", 0, minimum=0),
        Key("folder", "where the corpora, caches and runs go (never the repository)",
            "/tmp/orderbench-scale", metavar="DIR"),
        _flag("ddp", "also train with trainer=ddp_cpu (2 processes): their summed PSS", True),
        _flag("keep", "keep each corpus and cache entry (default: removed once measured)"),
        Key("nips", "the NIPS abstracts (nseg layout): time paper-size training on them",
            metavar="DIR"),
        Key("reference", "with nips: another tree of the suite (an earlier commit) to time "
            "alternately, for the ratio", metavar="DIR"),
        Key("experiment", "with nips: the conf/experiment of the timing", "attordernet_paper",
            metavar="NAME"),
        _count("nips_steps", "with nips: timed training steps of each probe", 40),
        _count("repeats", "with nips: probes of each tree (median)", 3),
        Key("out", "also write the figures as JSON to FILE", metavar="FILE"),
    ),
    "benchmark.bench.scale:main",
)  # fmt: skip

BENCH_CLI = Command(
    "bench cli", "start-up time of the commands that do not train",
    (
        Key("run", "a finished run folder, for score, compare and predict", metavar="DIR"),
        Key("reference", "another tree of the suite (an earlier commit) to time alternately, "
            "for the ratio", metavar="DIR"),
        _count("repeats", "runs of each command in each tree (median)", 3),
        Key("only", "time only the commands whose label starts with one of these words "
            "(train: bad input, to the first error line)", kind="list", metavar="WORD,WORD"),
        Key("out", "also write the figures as JSON to FILE", metavar="FILE"),
    ),
    "benchmark.bench.cli_startup:main",
)  # fmt: skip

KIT = Key("kit", "the kit folder", "gpu-kit", metavar="DIR")
BENCH_GPU_KIT = Command(
    "bench gpu-kit", "gather what a GPU machine lacks for `bench gpu-check` into one folder",
    (
        KIT,
        Key("nips", "the NIPS abstracts (SE-Graph layout), or `synthetic`: NIPS-like "
            "abstracts of GloVe words, for a dry run without the corpus", metavar="DIR",
            shown="$ORDERBENCH_DATASETS/nips_nseg"),
        Key("python", "the GPU machine's Python, for its wheels", "3.12", metavar="X.Y"),
        _flag("wheels", "download the wheels (false: a kit for this machine's packages)", True),
    ),
    "benchmark.bench.gpu_kit:main",
)  # fmt: skip
BENCH_GPU_CHECK = Command(
    "bench gpu-check", "install a GPU kit, then measure the GPU path in one timed command",
    (
        Key("device", "cuda: the check; cpu: its dry run, in small", "cuda", kind="choice",
            choices=DEVICES),
        KIT,
        Key("out", "the folder of the record and the log (gpu-check-<device>.json, .log)",
            metavar="DIR", shown="$OUT if set, else results/bench"),
        Key("scratch", "the folder of the installed wheels, runs and records", metavar="DIR",
            shown="a new temporary folder"),
        _count("minutes", "the time budget of all steps together", None,
               shown="8; device=cpu: 20"),
        _count("runs", "runs sharing the GPU in the concurrency step", None,
               shown="4; device=cpu: 2", minimum=2),
        Key("steps", "the steps to run after `install`", kind="list", shown="all"),
    ),
    "benchmark.bench.gpu_check:main",
)  # fmt: skip

# -- data -----------------------------------------------------------------------------------
DATASET = Key("dataset", "a conf/dataset name", positional=True, metavar="NAME", shown="brown")


def dataset_overrides(args: dict) -> list[str]:
    """The config overrides of datacard and prepare: `dataset=NAME` first when given."""
    return [*([f"dataset={args['dataset']}"] if args["dataset"] else []), *args["overrides"]]


DATACARD = Command(
    "datacard", "a dataset's sizes and statistics (JSON)", (DATASET,),
    "benchmark.datacard:main", overrides=HYDRA_OVERRIDES + ", e.g. dataset.path=P",
)
PREPARE = Command(
    "prepare", "fetch and preprocess a dataset into the cache", (DATASET,),
    "benchmark.prepare_data:main", overrides=HYDRA_OVERRIDES + ", e.g. model=minilm_finetune",
)

# -- sweeps ---------------------------------------------------------------------------------
SWEEP = Key("sweep", "a sweep of conf/sweep/", positional=True, required=True, metavar="NAME")
SWEEP_RUN = Command(
    "sweep run", "launch every run of conf/sweep/NAME.yaml (hydra/launcher=slurm|local)",
    (SWEEP,), "benchmark.cli:sweep_run", details=False, flags=True,
    overrides=HYDRA_OVERRIDES + "; Hydra's own flags pass on, as to `orderbench train -m`",
)  # fmt: skip
SWEEP_LIST = Command(
    "sweep list", "dry listing of a sweep: every job and what it would do in its run folder",
    (SWEEP,), "benchmark.sweep.listing:main", overrides="overrides, as for the sweep",
)
SWEEP_SUMMARY = Command(
    "sweep summary", "finished / failed / interrupted runs under a sweep's folder",
    (Key("runs", "the sweep's output folder (paths.runs)", positional=True, required=True,
         metavar="RUNS"),),
    "benchmark.sweep.summary:main",
)  # fmt: skip

# -- models ---------------------------------------------------------------------------------
PARAMS = Command(
    "params", "parameter counts of every preset at its declared defaults (Markdown)",
    (_count("vocab_size", "word ids, <pad> and <unk> included (Brown's training vocabulary)",
            20275, minimum=2),
     Key("markdown", "instead, rewrite the table of presets of this page in place, between "
         "its marker comments (docs/models.md; `make docs`)", metavar="FILE")),
    "models.param_counts:main", call="keys",
)  # fmt: skip
PRESETS = Command(
    "presets", "every registered preset with its colour and summary, then the free colours",
    target="models.registry:main", call="keys", details=False,
)

WEIGHTS = Command(
    "weights", "fetch a registered pretrained encoder's files (mpnet) and check their pinned "
    "sha256",
    (Key("encoder", "a registered encoder (models/blocks/pretrained.py: minilm, mpnet)",
         "mpnet"),
     _flag("check", "only check the folder against the pinned digests, fetch nothing")),
    "benchmark.weights:main", call="keys",
)  # fmt: skip

COMMANDS = (
    TRAIN, EVALUATE, SCORE, COMPARE, PREDICT, LEADERBOARD, PLOTS, SITE, ARCHIVE, PRESENTATION,
    BENCH, BENCH_PROFILE, BENCH_COMPILE, BENCH_TSORT, BENCH_ENCODER, BENCH_ENCODER_MEMORY,
    BENCH_SCALE, BENCH_CLI, BENCH_GPU_KIT,
    BENCH_GPU_CHECK, DATACARD, PREPARE, SWEEP_RUN, SWEEP_LIST, SWEEP_SUMMARY, PARAMS, PRESETS,
    WEIGHTS,
)  # the order of `orderbench --help`; the studies' commands follow
