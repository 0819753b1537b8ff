"""The file helpers every checker corpus generator shares (tests/*/make_*_corpus.py).

A corpus is three folders — ``valid`` (exit 0), ``invalid`` (exit 1), ``malformed`` (exit 2) — and a
``MANIFEST.json`` naming, for each file, its exit code and what the checker's one line says;
``conftest.assert_corpus_regenerates`` checks that a generator writes the committed bytes again.
"""
from __future__ import annotations

import json
from pathlib import Path

__all__ = ["document_text", "replace_once", "Refusals", "write_corpus"]


def document_text(doc) -> str:
    """A document as the corpus files hold it: compact JSON and a newline."""
    return json.dumps(doc) + "\n"


def replace_once(text: str, old: str, new: str) -> str:
    """``text`` with its one occurrence of ``old`` replaced (the edit a malformed file makes, and no other)."""
    assert text.count(old) == 1, (old, text)
    return text.replace(old, new)


class Refusals(dict):
    """name → (file bytes, the field or step the message names, a phrase of it): the malformed files, as
    :func:`write_corpus` takes them; ``doc`` adds a document, ``raw`` a file's text or bytes as they are."""

    def doc(self, name: str, d, field: str, says: str) -> None:
        self[name] = (document_text(d).encode(), field, says)

    def raw(self, name: str, text: str | bytes, field: str, says: str) -> None:
        self[name] = (text.encode() if isinstance(text, str) else text, field, says)


def write_corpus(out: Path, valid_files: dict, invalid_files: dict, malformed_files: dict) -> dict:
    """Write ``valid`` (name → (text, verdict)), ``invalid`` (name → (document, step, phrase)) and ``malformed``
    (name → (bytes, field, phrase)) files and their MANIFEST.json under ``out``; return the manifest."""
    manifest: dict = {"valid": {}, "invalid": {}, "malformed": {}}
    for sub in manifest:
        (out / sub).mkdir(parents=True, exist_ok=True)
        for f in (out / sub).glob("*.json"):
            f.unlink()
    for name, (text, says) in valid_files.items():
        (out / "valid" / f"{name}.json").write_bytes(text.encode())
        manifest["valid"][f"{name}.json"] = {"exit": 0, "says": says}
    for name, (d, field, says) in invalid_files.items():
        (out / "invalid" / f"{name}.json").write_bytes(document_text(d).encode())
        manifest["invalid"][f"{name}.json"] = {"exit": 1, "field": field, "says": says}
    for name, (data, field, says) in malformed_files.items():
        (out / "malformed" / f"{name}.json").write_bytes(data)
        manifest["malformed"][f"{name}.json"] = {"exit": 2, "field": field, "says": says}
    (out / "MANIFEST.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return manifest
