"""Regenerate ``rooted_family.json``: ``python tests/bracket/make_rooted_family.py`` (about 10 s).

A small length-3 witness family cut from row ``m = 28`` of docs/results.md
(``docs/results/m28.cert.json``) with the structure the search by roots is for
(docs/math.md §12, "Shared interpolated keys"): the 120 codewords nearest the first one, and
for each of them only the chains that pass through an interpolated key (a key that is no
codeword's complement) between two complements of those 120 words, plus one jump from the
query's own complement (its scale key, overlap 0) to the first such chain's better key.
Some interpolated keys are then used by two or four queries. Every jump is one the
certificate's family has, so the inputs are witnesses of it; the file lists the jumps as
``[x, y, z]`` hex integers (tokens of 28 bits, bit ``i`` = coordinate ``i``).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

NEAREST = 120


def build() -> dict:
    from certify.certificates.compact import code_and_plan
    from witnesses.plans import query_part

    doc = json.loads((ROOT / "docs" / "results" / "m28.cert.json").read_text())
    code, plan, n = code_and_plan(doc)
    words, m = code.words, doc["claim"]["m"]
    full = (1 << m) - 1
    complements = {full ^ w for w in words}
    near = sorted(range(len(words)), key=lambda i: ((words[i] ^ words[0]).bit_count(), i))[:NEAREST]
    roots = {full ^ words[i] for i in near}
    jumps = []
    for i in near:
        x = words[i]
        js = query_part(code, plan, n, i)[1]
        parent = {J.z: J.y for J in js if J.y in roots and J.z not in complements}
        chains = [(J.y, J.z) for J in js if J.y in parent and J.z in roots]
        if not chains:
            continue
        keys = dict.fromkeys(k for k, _ in chains)
        jumps.append((x, full ^ x, parent[next(iter(keys))]))
        jumps += [(x, parent[k], k) for k in keys] + [(x, k, z) for k, z in chains]
    return {"m": m, "note": __doc__.split("\n\n")[1].replace("\n", " "),
            "jumps": [[format(v, "x") for v in j] for j in jumps]}


if __name__ == "__main__":
    (HERE / "rooted_family.json").write_text(json.dumps(build()) + "\n")
