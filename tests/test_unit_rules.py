"""Unit tests of ``generator.families.rules``: the digest by which a contract's rules are recognised."""

from __future__ import annotations

import hashlib

from pydantic import BaseModel, ConfigDict, Field

from generator.canon import canonical_json
from generator.families.rules import rules_digest


class Tiny(BaseModel):
    """A contract in miniature: two rule fields (one aliased) and a field that is not a rule."""

    model_config = ConfigDict(populate_by_name=True)

    weights: dict[str, int]
    pass_bar: str = Field(alias="passBar")
    status: str


def test_the_digest_is_sha256_of_the_canonical_json_of_the_named_alias_spelled_fields() -> None:
    contract = Tiny(weights={"b": 2, "a": 1}, pass_bar=">= 9/12", status="draft")
    expected = hashlib.sha256(
        canonical_json({"passBar": ">= 9/12", "weights": {"a": 1, "b": 2}}).encode("utf-8")
    ).hexdigest()
    assert rules_digest(contract, ("weights", "passBar")) == expected
    assert rules_digest(contract, ("passBar", "weights")) == expected  # the order named does not matter


def test_only_the_named_fields_count() -> None:
    first = Tiny(weights={"a": 1}, pass_bar="x", status="draft")
    successor = Tiny(weights={"a": 1}, pass_bar="x", status="historical")
    changed = Tiny(weights={"a": 2}, pass_bar="x", status="draft")
    fields = ("weights", "passBar")
    assert rules_digest(first, fields) == rules_digest(successor, fields)  # status is not a rule
    assert rules_digest(first, fields) != rules_digest(changed, fields)
    assert rules_digest(first, ("weights",)) != rules_digest(first, fields)
