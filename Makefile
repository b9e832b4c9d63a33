# OrderBench: `make train` and `make test` each set up everything they need.
PYTHON     ?= python3
VENV       ?= .venv
PY         := $(VENV)/bin/python
OB         := $(VENV)/bin/orderbench
TORCH_SPEC ?= torch==2.13.0
EXTRAS     ?= dev,slurm,minilm,site
STAMP      := $(VENV)/.orderbench-setup
ARGS       ?=
SWEEP      ?= smoke
ENCODER    ?= mpnet
# the trainer of `make sweep` and `make sweep-list`: gpu when nvidia-smi lists a GPU here, else
# cpu (on a login node without GPUs give TRAINER=gpu for the cluster's)
TRAINER    ?= $(shell nvidia-smi -L 2>/dev/null | grep -q '^GPU' && echo gpu || echo cpu)
JOBS       ?= 2
# PyTorch threads per sweep-local job: results depend on it, so it does not follow nproc
CPU_THREADS ?= 1
# test processes of `make test` (pytest-xdist): one per core the machine has
TEST_JOBS  ?= $(shell nproc 2>/dev/null || echo 1)
XDIST      := $(if $(filter-out 0 1,$(TEST_JOBS)),-n $(TEST_JOBS))
RUNS       ?= runs
# `make reproduction`: the sweep (conf/sweep/) and the variant it writes (reproduction_e60 ->
# repro_e60), and the variants of other budgets set beside it on the page
SWEEP_REPRO ?= reproduction_e100
VARIANT    ?= $(patsubst reproduction%,repro%,$(SWEEP_REPRO))
COMPARE    ?=
CV_VARIANT ?=
# `make gpu-kit` / `make gpu-check`: the kit folder, and the check's device (cpu: its dry
# run here); where no .venv is (the GPU machine), the machine's own python3 runs the check
KIT        ?= gpu-kit
DEVICE     ?= cuda
CHECK_PY   := $(if $(wildcard $(PY)),$(PY),python3)
COMMA      := ,
SPACE      := $(subst ,, )

.PHONY: help setup train test test-slow weights data lint docs leaderboard plots site browser bench \
	bench-cli bench-compile bench-scale sweep sweep-local sweep-list sweep-summary slurm-up slurm-down slurm-test reproduction \
	reproduction-report nips nips-report gpu-kit gpu-check

# variables `make help` shows with their values
HELP_VARS  := TORCH_SPEC EXTRAS TRAINER RUNS KIT TEST_JOBS
help:  ## list the targets
	@$(foreach v,$(HELP_VARS),$(v)='$($(v))') awk -v names='$(HELP_VARS)' \
		'function expand(text,  n, i, key, at, out) { \
			n = split(names, list, " "); \
			for (i = 1; i <= n; i++) { \
				key = "$$(" list[i] ")"; out = ""; \
				while ((at = index(text, key)) > 0) { \
					out = out substr(text, 1, at - 1) ENVIRON[list[i]]; \
					text = substr(text, at + length(key)); \
				} \
				text = out text; \
			} \
			return text; \
		} \
		/^[a-z-]+:.*## / { split($$0, part, ":.*## "); name = part[1]; sub(/:.*/, "", name); \
			printf "  %-19s %s\n", name, expand(part[2]) }' $(MAKEFILE_LIST)

setup: $(STAMP)  ## create .venv: torch ($(TORCH_SPEC)) first, then the project with [$(EXTRAS)]

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "$(TORCH_SPEC)"
	PYTHONWARNINGS=ignore $(PY) -m pip install --quiet -e ".[$(EXTRAS)]"  # no setuptools banner
	touch $@

weights: setup  ## fetch a pretrained encoder's files into $$ORDERBENCH_WEIGHTS (default ~/.cache/orderbench/weights) and check their pinned sha256 (ENCODER=mpnet: all-mpnet-base-v2, 110M parameters, ~420 MB)
	$(OB) weights encoder=$(ENCODER) $(ARGS)

data: setup  ## fetch and preprocess the Brown corpus (cached under data/cache/)
	$(OB) prepare $(ARGS)

train: setup  ## train LSTM+PtrNet on Brown and print test metrics (override with ARGS="model=... seed=...")
	$(OB) train $(ARGS)

test: setup  ## run the test suite (fast checks, TEST_JOBS=$(TEST_JOBS) processes: one per core; `make test-slow` for the slow ones)
	$(PY) -m pytest -q $(XDIST) $(ARGS)

test-slow: setup  ## run only the slow checks (TEST_JOBS processes too)
	$(PY) -m pytest -q -m slow $(XDIST) $(ARGS)

lint: setup  ## ruff
	$(PY) -m ruff check benchmark models data tests

docs: setup  ## rewrite the table of presets of docs/models.md from the registry: each preset's summary and parameter counts
	$(OB) params markdown=docs/models.md

leaderboard: setup  ## RUNS/reports/leaderboard.csv + .md from the finished runs under RUNS=runs (ARGS="out=DIR wandb=true"; out=results replaces the committed ones)
	$(OB) leaderboard runs=$(RUNS) $(ARGS)

plots: setup  ## RUNS/reports/plots/*.png from the finished runs under RUNS=runs (ARGS="out=DIR wandb=true"; out=results/plots replaces the committed ones)
	$(OB) plots runs=$(RUNS) $(ARGS)

site: setup  ## RUNS/reports/site/: a static results site of the finished runs under RUNS=runs, a page per corpus and per run (ARGS="runs=DIR out=DIR reference=... text=..."; out=results/site replaces the committed one)
	$(OB) site $(if $(filter runs=%,$(ARGS)),,runs=$(RUNS)) $(ARGS)

browser:  ## install headless Chromium and its driver (Debian's chromium, chromium-driver) for the site's browser tests; without root or apt-get it says why, and those tests skip
	@if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then \
		echo "browser: chromium and chromedriver are installed"; \
	elif [ "$$(id -u)" != 0 ]; then \
		echo "browser skipped: apt-get install -y chromium chromium-driver needs root; the browser tests skip"; \
	elif ! command -v apt-get >/dev/null 2>&1; then \
		echo "browser skipped: no apt-get here (install chromium and its chromedriver); the browser tests skip"; \
	else \
		{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver; } \
			|| echo "browser: apt-get could not install chromium; the browser tests skip"; \
	fi

bench: setup  ## measured throughput of every preset: training, decoding, scaling, batched vs per-document search; paper-size training, fast vs reference paths (ARGS="presets=... quick=true")
	$(OB) bench $(ARGS)

gpu-kit: setup  ## gather into KIT=$(KIT) what a GPU machine lacks for `make gpu-check` (wheels, the NIPS abstracts of ORDERBENCH_DATASETS, their GloVe vectors) and print what to carry and run there (ARGS="nips=synthetic": a dry-run kit without the corpus)
	$(PY) -m benchmark.bench.gpu_kit kit=$(KIT) $(ARGS)

gpu-check:  ## on a GPU machine, from the kit: bench, a NIPS run, DDP, bf16, runs sharing the GPU, CUDA graphs, in one timed command; DEVICE=cpu: its dry run here, in small (record and log into the folder OUT names, else results/bench)
	$(CHECK_PY) -m benchmark.bench.gpu_check device=$(DEVICE) kit=$(KIT) $(ARGS)

bench-compile: setup  ## graphs, graph breaks, recompilations, host syncs and operators of every preset's training step, compiled against eager seconds, on the NIPS abstracts (ORDERBENCH_DATASETS) -> the record in results/bench/, compile-<date>.json (ARGS="targets=... steps=50 compiled=false")
	OMP_NUM_THREADS=1 $(OB) bench compile $(ARGS)

bench-cli: setup  ## start-up time of the commands that do not train (ARGS="run=RUN_DIR reference=DIR"; docs/performance.md)
	$(OB) bench cli $(ARGS)

bench-scale: setup  ## memory and time of preparing and training on 100k, 400k and 1.1M synthetic abstracts under /tmp (ARGS="sizes=20000 steps=20 nips=DIR reference=DIR"; docs/performance.md)
	OMP_NUM_THREADS=1 $(OB) bench scale $(ARGS)

sweep: setup  ## submit the jobs of conf/sweep/SWEEP.yaml to SLURM (SWEEP=paper TRAINER=gpu|ddp|cpu, here $(TRAINER): gpu when nvidia-smi sees one; ARGS=...)
	$(OB) sweep run $(SWEEP) hydra/launcher=slurm trainer=$(TRAINER) $(ARGS)

sweep-local: setup  ## run the same jobs as local processes, JOBS at a time, CPU_THREADS each (SWEEP=smoke JOBS=2)
	$(OB) sweep run $(SWEEP) hydra/launcher=local hydra.sweeper.max_batch_size=$(JOBS) \
		cpu_threads=$(CPU_THREADS) $(ARGS)

sweep-list: setup  ## dry run of `make sweep`: the jobs of SWEEP and what each would do (trainer=$(TRAINER))
	$(OB) sweep list $(SWEEP) trainer=$(TRAINER) $(ARGS)

sweep-summary: setup  ## finished / failed / interrupted runs under RUNS=runs, with failures' logs
	$(OB) sweep summary $(RUNS)

reproduction: setup  ## Cui et al. 2018 Tables 3 and 5 on Accidents/Earthquakes (ORDERBENCH_DATASETS): 60 runs one at a time at the released code's budget (100 epochs, patience 15) on the test articles, then results/reproduction.{md,csv} (SWEEP_REPRO=reproduction_e100_cv VARIANT=repro_e100: the cross-validated protocol, 200 runs; reproduction_e100_released: each released-code choice, 54; reproduction_e60 or reproduction: 60 or 10 epochs; COMPARE="repro_e60 repro": those beside the headline)
	$(PY) -m benchmark.train -m sweep=$(SWEEP_REPRO) hydra/launcher=local hydra.sweeper.max_batch_size=1 \
		cpu_threads=1 $(ARGS)
	$(MAKE) --no-print-directory reproduction-report VARIANT=$(VARIANT) COMPARE="$(COMPARE)"

nips: setup  ## Cui et al. 2018 Table 3, NIPS column, on the SE-Graph split (ORDERBENCH_DATASETS): 39 runs one at a time (studies/cui2018/conf/sweep/nips.yaml: the 2018-era rows, 30; nips_pretrained.yaml: the pretrained paragraph encoders at BERSON's 20-epoch recipe, 9), then results/reproduction_nips.{md,csv} and results/nips/ (leaderboard, plots)
	$(OB) sweep run nips hydra/launcher=local hydra.sweeper.max_batch_size=1 cpu_threads=1 $(ARGS)
	$(OB) sweep run nips_pretrained hydra/launcher=local hydra.sweeper.max_batch_size=1 cpu_threads=1 $(ARGS)
	$(MAKE) --no-print-directory nips-report

nips-report: setup  ## results/reproduction_nips.{md,csv} and results/nips/ from the finished NIPS runs, no training (each run of a row that reads the presented order decoded under 5 other presentations once)
	$(OB) study cui2018-nips runs=$(RUNS) out=results presentations=5
	$(OB) leaderboard runs=$(RUNS)/nips out=results/nips
	$(OB) plots runs=$(RUNS)/nips out=results/nips/plots

reproduction-report: setup  ## results/reproduction.{md,csv} from the finished runs, no training (VARIANT=repro_e100 COMPARE="repro_e60 repro": several, space-separated; the cross-validated cells: the runs of cv_e100, CV_VARIANT to name another)
	$(OB) study cui2018 runs=$(RUNS) out=results variant=$(VARIANT) \
		$(if $(strip $(COMPARE)),compare=$(subst $(SPACE),$(COMMA),$(strip $(COMPARE)))) \
		$(if $(CV_VARIANT),cv_variant=$(CV_VARIANT))

slurm-up:  ## stand up a one-node SLURM cluster on this machine (root; scripts/local_slurm.sh)
	scripts/local_slurm.sh up

slurm-down:  ## stop the daemons of `make slurm-up`
	scripts/local_slurm.sh down

slurm-test: setup  ## `make sweep` on a real one-node SLURM stood up here (root, else skipped; ~15 min)
	@if [ "$$(id -u)" != 0 ]; then \
		echo "slurm-test skipped: standing up SLURM (apt packages, munge, slurmdbd) needs root;"; \
		echo "on a machine with SLURM: ORDERBENCH_SLURM=1 $(PY) -m pytest -m slurm tests/benchmark/sweep/test_slurm_cluster.py"; \
		exit 0; fi; \
	out=$$(scripts/local_slurm.sh up 2>&1) || { echo "$$out"; echo "slurm-test: SLURM did not come up"; exit 1; }; \
	echo "$$out"; started=$$(echo "$$out" | grep -c '^started:'); \
	WANDB_MODE=offline OMP_NUM_THREADS=1 ORDERBENCH_SLURM=1 \
		$(PY) -m pytest -q -rA -m slurm -p no:cacheprovider --durations=0 tests/benchmark/sweep/test_slurm_cluster.py $(ARGS); \
	status=$$?; \
	if [ "$$started" -gt 0 ]; then scripts/local_slurm.sh down; fi; \
	exit $$status
