"""A synthetic relational data set with a planted relation, in the published facts format.

Customers (the examples) place orders; an order has an amount and a channel. The label is
``good`` when the customer's mean order amount exceeds a threshold (flipped with probability
``noise``), so ``order_amount`` — reached through ``order_of`` — is the planted relation and
``order_channel``, ``customer_region`` and ``customer_age`` are noise. A ranker that learns the
concept ranks ``order_amount`` (and the link ``order_of``) first.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

SETTINGS = """[Relations]
label(Customer,nominal1)
order_of(Order,Customer)
order_amount(Order,numeric1)
order_channel(Order,nominal2)
customer_region(Customer,nominal3)
customer_age(Customer,numeric2)
[Aggregates]
count
mean
min
max
sum
mode
[AtomTests]
order_of(new,old)
order_of(old,new)
order_amount(old,new)
order_channel(old,new)
customer_region(old,new)
customer_age(old,new)
"""

PLANTED = ("order_amount", "order_of")


def write_planted(folder: str | Path, n: int = 120, seed: int = 0, noise: float = 0.0,
                  folds: int = 0) -> Path:
    """Write ``shop.s``, ``shop_descriptive.txt``, ``shop_target.txt`` (and a fold file when
    ``folds``) into ``folder``; returns the folder."""
    rng = np.random.default_rng(seed)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    facts, target = [], []
    oid = 0
    for c in range(n):
        k = int(rng.integers(1, 7))
        amounts = rng.gamma(2.0, 10.0, size=k)
        for a in amounts:
            facts.append(f"order_of(o{oid},c{c})")
            facts.append(f"order_amount(o{oid},{a:.2f})")
            facts.append(f"order_channel(o{oid},{rng.choice(['web', 'shop', 'phone'])})")
            oid += 1
        facts.append(f"customer_region(c{c},{rng.choice(['north', 'south', 'east', 'west'])})")
        facts.append(f"customer_age(c{c},{int(rng.integers(18, 80))})")
        good = amounts.mean() > 20.0
        if rng.random() < noise:
            good = not good
        target.append(f"label(c{c},{'good' if good else 'bad'})")
    (folder / "shop.s").write_text(SETTINGS)
    (folder / "shop_descriptive.txt").write_text("\n".join(facts) + "\n")
    (folder / "shop_target.txt").write_text("\n".join(target) + "\n")
    if folds:
        (folder / "folds").mkdir(exist_ok=True)
        order = rng.permutation(n)
        parts = ["|customers", "|label"]
        for f in range(folds):
            parts.append("|||")
            parts.extend(f"c{c}" for c in order[f::folds])
        parts.append("|||")
        (folder / "folds" / "folds1.txt").write_text("\n".join(parts) + "\n")
    return folder
