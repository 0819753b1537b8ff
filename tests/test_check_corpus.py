"""The certificate corpus: one test per file, each with its expected exit code and failing step.

``tests/certificates/MANIFEST.json`` is written by ``make_corpus.py`` from hand-written
expectations next to each attack; this test compares them with the checker.
"""
import functools
import json

import pytest

from certify.check import CertificateError, check_file

from conftest import CORPUS

MANIFEST = json.loads((CORPUS / "MANIFEST.json").read_text())
FILES = sorted(str(p.relative_to(CORPUS)) for d in ("valid", "invalid", "malformed") for p in (CORPUS / d).iterdir())


def test_manifest_lists_exactly_the_files():
    assert sorted(MANIFEST) == FILES


def test_every_folder_has_its_outcome():
    for rel, exp in MANIFEST.items():
        assert exp["exit"] == {"valid": 0, "invalid": 1, "malformed": 2}[rel.split("/")[0]], rel


@pytest.mark.parametrize("rel", FILES)
def test_corpus_file(rel):
    exp = MANIFEST[rel]
    path = str(CORPUS / rel)
    if exp["exit"] == 0:
        verified = check_file(path)
        assert verified.rank_at_least <= verified.proved
        return
    with pytest.raises(CertificateError) as info:
        check_file(path)
    assert info.value.exit_code == exp["exit"], str(info.value)
    assert info.value.step == exp["step"], str(info.value)
    assert "\n" not in str(info.value)


def test_paper_certificate_edited_to_claim_ten_is_rejected():
    with pytest.raises(CertificateError, match="rank_at_least 10 is not proved: the data give r ≥ 9"):
        check_file(str(CORPUS / "invalid" / "paper_chains_claim_raised_to_ten.json"))


def test_missing_file_is_malformed(tmp_path):
    with pytest.raises(CertificateError, match="no such file") as info:
        check_file(str(tmp_path / "absent.json"))
    assert info.value.exit_code == 2


# --------------------------------------------------------------------------- the JSON Schemas (shape only)

SCHEMAS = {("certify.rank-certificate", 1): "certificate.schema.json",
           ("certify.rank-certificate", 2): "compact-certificate.schema.json",
           ("certify.unique-minimizer-certificate", 1): "unique-minimizer-certificate.schema.json"}


def schema_for(doc: dict) -> dict:
    return json.loads((CORPUS.parents[1] / "docs" / SCHEMAS[doc["format"], doc["version"]]).read_text())


@functools.cache
def _validator(key: tuple):
    """The schema's validator, the schema checked against its meta-schema once: what ``jsonschema.validate`` does,
    less building both again for each of the ≈ 150 documents (most of its cost here)."""
    import jsonschema

    schema = json.loads((CORPUS.parents[1] / "docs" / SCHEMAS[key]).read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def validate_shape(doc: dict) -> None:
    """``jsonschema.validate(doc, schema_for(doc))``: raises ``jsonschema.ValidationError`` unless ``doc`` has the shape."""
    _validator((doc["format"], doc["version"])).validate(doc)


@pytest.mark.parametrize("rel", [r for r in FILES if MANIFEST[r]["exit"] in (0, 1) and MANIFEST[r]["step"] != "integrity"])
def test_well_formed_corpus_files_match_their_schema(rel):
    """Every valid file, and every invalid one (well formed: only the mathematics rejects it), has the
    schema's shape — including each ``argument`` kind (shifted, square, null-shifted, square-kernel)."""
    doc = json.loads((CORPUS / rel).read_text(encoding="utf-8"))
    validate_shape(doc)


# Malformed ``argument`` files whose fault is a value, not a shape: the schemas cannot see a gcd, a range, or
# that the last of the μ_j is 0.
ARGUMENT_VALUES = {"malformed/argument_s_not_lowest_terms.json", "malformed/null_shifted_s_not_lowest_terms.json",
                   "malformed/square_kernel_mu_not_lowest_terms.json", "malformed/argument_s_one.json",
                   "malformed/argument_s_above_one.json", "malformed/argument_s_negative.json",
                   "malformed/argument_square_zero_diagonal.json", "malformed/square_kernel_mu_trailing_zero.json"}
ARGUMENT_SHAPES_REFUSED = sorted(
    r for r in FILES if r.startswith("malformed/") and r not in ARGUMENT_VALUES
    and any(k in r for k in ("argument", "null_shifted", "square")))


def test_the_argument_files_are_all_sorted_into_shapes_and_values():
    assert len(ARGUMENT_SHAPES_REFUSED) >= 25 and ARGUMENT_VALUES <= set(FILES)


@pytest.mark.parametrize("rel", ARGUMENT_SHAPES_REFUSED)
def test_the_schemas_refuse_argument_shapes_the_checker_refuses(rel):
    """Shape errors of ``argument`` (keys, types, ``mu`` not a list of at most 8 rational strings) are schema errors too."""
    import jsonschema

    doc = json.loads((CORPUS / rel).read_text(encoding="utf-8"))
    with pytest.raises(jsonschema.ValidationError):
        validate_shape(doc)


def test_the_schemas_bound_mu_to_eight_rational_strings():
    import jsonschema

    for key, name in SCHEMAS.items():
        schema = json.loads((CORPUS.parents[1] / "docs" / name).read_text())
        kinds = {k["properties"]["name"]["const"]: k for k in schema["properties"]["argument"]["oneOf"]}
        assert sorted(kinds) == ["null-shifted", "shifted", "square", "square-kernel", "trace-frobenius"], name
        arg = {"name": "square-kernel", "b": "0", "g": "0", "mu": [], "frobenius_squared_at_most": "1", "ratio": "1",
               "rank_at_least": 1}
        jsonschema.validate(arg, schema["properties"]["argument"] | {"$defs": schema["$defs"]})
        for mu in (["1/2"] * 9, "1/2", [0], ["0.5"], ["1/0"], [["1"]]):
            with pytest.raises(jsonschema.ValidationError):
                jsonschema.validate(dict(arg, mu=mu), schema["properties"]["argument"] | {"$defs": schema["$defs"]})
        with pytest.raises(jsonschema.ValidationError):  # mu belongs to square-kernel only
            jsonschema.validate({"name": "null-shifted", "s": "1/8", "mu": [], "frobenius_squared_at_most": "1",
                                 "ratio": "1", "rank_at_least": 1}, schema["properties"]["argument"] | {"$defs": schema["$defs"]})


def test_producers_write_the_new_arguments_in_the_schemas_shape():
    """What the producers write with ``argument="best"`` / a named kind matches the schema and verifies."""
    from certify.certificates.compact import build_compact_certificate
    from certify.certificates.producer import rank_nine_certificate
    from certify.certificates.rank_bound import make_plan
    from certify.certificates.unique_minimizer import unique_minimizer_certificate
    from certify.check import check
    from codes import load_code, rank_nine_code

    h24 = load_code("hadamard24")
    docs = [rank_nine_certificate("paper", argument="best"),
            rank_nine_certificate("direct", argument="null-shifted"),
            build_compact_certificate(h24, make_plan(h24, "best"), argument="best"),
            build_compact_certificate(h24, make_plan(h24, "best"), argument="square-kernel"),
            build_compact_certificate(rank_nine_code(), make_plan(rank_nine_code(), "paper"), argument="square-kernel"),
            unique_minimizer_certificate(argument="best"),
            unique_minimizer_certificate(argument="square-kernel")]
    names = [d["argument"]["name"] for d in docs]
    assert names == ["null-shifted", "null-shifted", "null-shifted", "square-kernel", "square-kernel", "null-shifted",
                     "square-kernel"], names
    for doc in docs:
        validate_shape(doc)
        assert check(doc).proved >= doc["argument"]["rank_at_least"]


@pytest.mark.parametrize("name,proved,tf,kind,ratio", [
    ("compact_null_shifted_rank_nine_paper.json", 12, 9, "null-shifted", "35/3"),
    ("null_shifted_rank_nine_direct.json", 13, 10, "null-shifted", "243/19"),
    ("compact_null_shifted_s_zero.json", 9, 9, "null-shifted", "8"),  # ⌊8⌋ + 1: Theorem A is strict
    ("compact_null_shifted_hadamard24.json", 30, 17, "null-shifted", "207/7"),
    ("um_null_shifted.json", 6, 4, "null-shifted", "5"),  # ⌊5⌋ + 1 = 6 = t
    ("compact_square_kernel_golay24.json", 53, 21, "square-kernel", "1390708713604893552/967923329425915"),
    ("compact_square_kernel_integer_ratio.json", 17, 17, "square-kernel", "15"),  # binom(6, 2) = 15 ≥ ⌈15⌉: ρ = 4
    ("compact_square_kernel_empty_mu.json", 17, 17, "square-kernel", "45"),  # binom(10, 2) = 45: ρ = 8
])
def test_the_null_space_arguments_prove_what_the_manifest_says(name, proved, tf, kind, ratio):
    """The headline bounds of Theorem A and Lemma N (docs/math.md §5), through the checker's own recomputation."""
    v = check_file(str(CORPUS / "valid" / name))
    assert (v.proved, v.trace_frobenius, v.argument["name"], v.argument_json()["ratio"]) == (proved, tf, kind, ratio)
    assert v.argument["rank_at_least"] == {"compact_null_shifted_s_zero.json": 9, "compact_square_kernel_integer_ratio.json": 4,
                                           "compact_square_kernel_empty_mu.json": 8}.get(name, proved)
