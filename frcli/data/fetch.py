"""Download catalog files from a mirror (plain HTTP(S) GET of ``<mirror>/<relative path>``).

The official pages (Mulan, the CLUS HMC page) distribute archives, so a mirror laid out like the
catalog paths is the one reproducible route; files already present are skipped unless ``force``.
Each file is written to a temporary name and renamed, so an interrupted download leaves nothing
half-written behind.
"""
from __future__ import annotations

import os
import shutil
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from frcli.errors import UserError


def fetch_file(url: str, target: Path, timeout: float = 60.0) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".part")
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp, open(tmp, "wb") as out:
            shutil.copyfileobj(resp, out, length=1 << 20)
        os.replace(tmp, target)
    except urllib.error.HTTPError as e:
        raise UserError(f"download failed: {url}: HTTP {e.code} {e.reason}") from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise UserError(f"download failed: {url}: {reason}") from None
    finally:
        if tmp.exists():
            tmp.unlink()


def fetch_entry(entry, mirror: str, dest: str | Path, *, force: bool = False,
                timeout: float = 60.0) -> list[tuple[str, str]]:
    """Fetch every file of a catalog entry into ``dest``; [(relative path, status)]."""
    dest = Path(dest)
    if urllib.parse.urlsplit(mirror).scheme not in ("http", "https", "file", "ftp"):
        raise UserError(f"--mirror {mirror!r} is not a URL; expected http(s)://host/path "
                        "(or file:///dir)")
    base = mirror.rstrip("/") + "/"
    out = []
    for rel in entry.files:
        parts = Path(rel).parts
        if Path(rel).is_absolute() or ".." in parts:
            raise UserError(f"catalog path {rel!r} of {entry.name!r} must be relative, "
                            f"without '..'")
        target = dest / rel
        if target.is_file() and not force:
            out.append((rel, "present"))
            continue
        fetch_file(base + urllib.parse.quote(rel), target, timeout)
        out.append((rel, "downloaded"))
    return out
