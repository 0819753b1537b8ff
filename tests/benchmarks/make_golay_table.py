"""A width-16 positive factor table on the golay24 family's tokens, values readout v(z) = z, w(x) = x (the A.1 shape)."""
import json, random, sys
doc = json.load(open(__import__("pathlib").Path(__file__).resolve().parents[2] / "docs/results/golay24.cert.json"))
words = doc["code"]["words"]
toks = sorted(set(words) | {"".join("1" if c == "0" else "0" for c in w) for w in words})
r = int(sys.argv[1]) if len(sys.argv) > 1 else 16
rnd = random.Random(0)
bits = [[int(c) for c in t] for t in toks]
table = {"note": f"random positive width-{r} factors on the golay24 tokens; values readout", "tokens": toks,
         "phi_q": [[rnd.randint(1, 9) for _ in range(r)] for _ in toks],
         "phi_k": [[rnd.randint(1, 9) for _ in range(r)] for _ in toks],
         "beta": [0] * len(toks), "w": bits, "values": bits}
json.dump(table, open(sys.argv[2], "w"))
print(len(toks), "tokens")
