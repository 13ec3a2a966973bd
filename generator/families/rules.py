"""The rules a family implements, pinned by digest.

A contract is accepted byte-for-byte, but benchsite scores only the rules it implements: the
parts of a contract that state how to score (dimensions, predicates, outcomes, metrics, judge
rubric) must be exactly those of the seed contract the family's code follows. A contract with the
same shape but other rules is refused instead of being published under rules it does not state.
Status, limitations, versions and provenance may differ (a successor with unchanged rules).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from pydantic import BaseModel

from generator.canon import canonical_json


def rules_digest(contract: BaseModel, fields: Iterable[str]) -> str:
    """sha256 of the canonical JSON of the named (alias-spelled) parts of a contract."""
    dumped = contract.model_dump(mode="json", by_alias=True)
    return hashlib.sha256(canonical_json({f: dumped[f] for f in fields}).encode("utf-8")).hexdigest()


def check_rules(contract: BaseModel, fields: tuple[str, ...], implemented: str, name: str) -> None:
    """Raise (a validation error, exit 4) when the contract's rules are not the implemented ones."""
    found = rules_digest(contract, fields)
    if found != implemented:
        raise ValueError(
            f"its scoring rules ({', '.join(fields)}) differ from the {name} rules benchsite implements "
            f"(rules digest {found[:16]}…, implemented {implemented[:16]}…): benchsite publishes only "
            "figures computed under the rules a contract states"
        )
