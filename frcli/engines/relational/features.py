"""Relational features: chains of atoms plus one aggregate per atom (docs/design/relational.md).

A candidate feature of a node is a chain — a prefix of the node's *context* (the chain of the
test chosen above it, or nothing: start again at the example) extended by 1..``lookahead`` new
atoms from the atom tests (modes) — with an aggregate chain and, for a ``c`` argument, a
constant. Features are enumerated without being evaluated (cheap: random forests sample among
them); enumerations are cached per context.

Choices where the papers are silent or disagree (recorded in docs/relational.md):

* ``old`` binds an existing variable of the argument's type (the example's key or a fresh
  variable of an earlier atom); ``new`` is always a fresh variable (re3py also lets it reuse an
  old one, which only adds tests such as "X advises X"); ``c`` (a constant) is allowed in the
  last atom only, the predicate on the final attribute (Ch. 3's "... ∧ r_nationName(Nation,
  spain)"): constants in inner atoms multiply the candidates by the domain size per atom
  (re3py's webkb runs did not finish) for tests a later node can add anyway.
* A chain is a path: each new atom uses a fresh variable of the previous atom (or, if that
  atom introduced none, shares a variable with it); no atom twice (re3py's validity rules).
* Aggregates follow re3py's follow table (R5): innermost over a numeric value count, sum,
  mean, min, max; over a nominal value count, mode; over objects or tuples, or an atom with
  no fresh variable, count. After min/max/mean/sum/count/countd comes min/max/mean/sum; after
  mode, count/countd/mode. countd innermost equals count (tuples of a set are distinct) and is
  left out. ``mode`` of object IDs needs variable-equality tests and is left out.
* Existential features (AGG-Exist): the number of groundings of the chain (count innermost,
  sum outside), tested > 0 only — the FOIL/BoostSRL "exists" test for chains of any length.
  (re3py's follow table admits no aggregate after count when count is the only aggregate, so
  its AGG-Exist tests are single atoms.)
* A relation with no facts has no atom tests. Through it a chain's innermost aggregate is
  the empty group's value for every grounding of the atoms before it (count/sum 0, the rest
  critical values that the outer aggregates drop), so the feature is a constant or the
  existence test of the shorter chain, which is a candidate itself. Left in, random forests
  chose the longer chain when the shorter was not sampled, and the thesis attribution gave
  the empty relation half of an existence test's reward (a non-zero score for a relation
  that cannot inform any test); out, its score is 0 by construction and fewer candidates
  are evaluated.
* Size: at most ``max_chain`` atoms (3; re3py's ``longest_atom_test_chain`` is 4, but its
  code restarts every context shorter than that, so its tests never exceed ℓ atoms; with
  continuation, 4-atom tests cost 3/4 of carcinogenesis's forest time for no measured gain),
  and no chain estimated to visit more than ``max_work`` tuples per example (``work``).
"""
from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field

import numpy as np

from frcli.data.relational.model import RelationalDataset
from frcli.errors import ConfigError

try:
    from frcli._ext.relational._relational import AGGREGATES, ArgKind, LastKind
except ImportError as e:  # pragma: no cover - a build problem, not a user error
    raise ImportError("frcli's relational kernel is not built; run 'make build' "
                      "(python setup.py build_ext --inplace)") from e

AGG_NAMES = ("count", "countd", "sum", "mean", "min", "max", "mode")
AGG_CODE = {a: int(AGGREGATES[a]) for a in AGG_NAMES}    # the kernel's codes
ALL_AGGREGATES = AGG_NAMES
SETTINGS_ALIASES = {"countUnique": "countd"}
_NUMERIC_OUT = ("min", "max", "mean", "sum")
_AFTER_MODE = ("count", "countd", "mode")

# an atom argument's kind and the kind of a chain's last atom: the kernel's enums
# (ext/relational/_relational.pxd), as plain ints
BOUND, FRESH, CONST = (int(k) for k in (ArgKind.K_BOUND, ArgKind.K_FRESH, ArgKind.K_CONST))
L_COUNT0, L_NUMERIC, L_CODE, L_TUPLE = (int(k) for k in (
    LastKind.L_COUNT0, LastKind.L_NUMERIC, LastKind.L_CODE, LastKind.L_TUPLE))


@dataclass(frozen=True)
class Atom:
    """One atom: relation index and per argument (kind, variable id or constant code)."""

    rel: int
    args: tuple[tuple[int, int], ...]

    def fresh(self) -> list[int]:
        return [v for k, v in self.args if k == FRESH]

    def bound(self) -> list[int]:
        return [v for k, v in self.args if k == BOUND]

    def has_const(self) -> bool:
        return any(k == CONST for k, _ in self.args)


Chain = tuple  # tuple[Atom, ...]


@dataclass
class Candidates:
    """The packed candidates that extend one prefix (what the kernel's ``Batch`` holds) and
    what is needed to read them back: chains, and per column its chain and aggregate
    pattern."""

    batch: object
    chains: list[Chain]
    col_chain: np.ndarray                     # per column: its chain
    col_pat: np.ndarray                       # per column: its row in the chain's patterns
    patterns: list                            # per chain: (aggregate tuples, nominal domains)

    @property
    def n_cols(self) -> int:
        return len(self.col_chain)

    def aggs(self, col: int) -> tuple[str, ...]:
        """The column's aggregates, outermost first."""
        return self.patterns[self.col_chain[col]][0][self.col_pat[col]]

    def domain(self, col: int) -> str | None:
        """The nominal domain of the column's values (None: numeric)."""
        return self.patterns[self.col_chain[col]][1][self.col_pat[col]]


@dataclass
class Language:
    """The language bias of a learning run, compiled from a ``RelationalDataset``."""

    ds: RelationalDataset
    lookahead: int = 2
    max_chain: int = 3
    max_work: float = 2e4
    aggregates: tuple[str, ...] = ALL_AGGREGATES
    existential: bool = False
    target_only: bool = False                 # NO-Rel: the target's own table, one atom
    rel_names: list[str] = field(default_factory=list)
    rel_types: list[tuple[str, ...]] = field(default_factory=list)
    modes: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
    consts: dict = field(default_factory=dict)
    db: object = None
    dom_num_off: dict = field(default_factory=dict)
    too_costly: int = 0
    _cache: dict = field(default_factory=dict)
    _bucket: dict = field(default_factory=dict)
    _patterns: dict = field(default_factory=dict)
    _lock: object = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        from frcli._ext.relational import _relational as K

        if self.lookahead < 1:
            raise ConfigError("lookahead must be >= 1")
        if not 1 <= self.max_chain <= K.MAX_CHAIN:
            raise ConfigError(f"max_chain must be in 1..{K.MAX_CHAIN}")
        ds = self.ds
        self.rel_names = list(ds.relations)
        index = {n: i for i, n in enumerate(self.rel_names)}
        self.rel_types = [ds.relations[n].types for n in self.rel_names]
        for n in self.rel_names:
            if ds.relations[n].arity > K.MAX_ARITY:
                raise ConfigError(f"relation {n} has arity {ds.relations[n].arity}; at most "
                                  f"{K.MAX_ARITY} is supported")
        k = len(ds.key_types)
        modes = []
        for m in ds.modes:
            if m.relation in ds.excluded:
                continue
            r = index[m.relation]
            types = self.rel_types[r]
            if self.target_only:
                own = (len(types) == k + 1 and types[:k] == ds.key_types
                       and ds.domains[types[k]].kind != "id"
                       and m.specs[:k] == ("old",) * k)
                if not own:
                    continue
            if "old" not in m.specs:
                continue        # nothing binds it to the feature
            if len(ds.relations[m.relation].tuples) == 0:
                continue        # no facts: adds no test (see the module docstring)
            modes.append((r, m.specs))
        self.modes = sorted(set(modes), key=lambda t: (self.rel_names[t[0]], t[1]))
        if self.target_only:
            self.lookahead, self.max_chain = 1, 1
        self._compile_db()

    # -- the facts as kernel arrays ----------------------------------------------------------
    def _compile_db(self) -> None:
        from frcli._ext.relational import _relational as K

        ds = self.ds
        A = K.MAX_ARITY
        nums, off = [], 0
        for name, dom in ds.domains.items():
            if dom.kind == "numeric":
                self.dom_num_off[name] = off
                nums.append(dom.numbers)
                off += dom.size
        tuples, rel_off, arity = [], [], []
        idx_off = np.zeros(len(self.rel_names) * A, dtype=np.int64)
        dom_size = np.zeros(len(self.rel_names) * A, dtype=np.int64)
        offsets, items = [], []
        t_off = o_off = i_off = 0
        for r, name in enumerate(self.rel_names):
            rel = ds.relations[name]
            tup = np.ascontiguousarray(rel.tuples, dtype=np.int32)
            tuples.append(tup.ravel())
            rel_off.append(t_off)
            arity.append(rel.arity)
            t_off += tup.size
            for j, t in enumerate(rel.types):
                size = ds.domains[t].size
                col = tup[:, j]
                order = np.argsort(col, kind="stable").astype(np.int32)
                counts = np.bincount(col, minlength=size)
                csr = np.zeros(size + 1, dtype=np.int64)
                np.cumsum(counts, out=csr[1:])
                idx_off[r * A + j] = o_off
                dom_size[r * A + j] = size
                offsets.append(csr + i_off)
                items.append(order)
                o_off += size + 1
                i_off += len(order)
                if ds.domains[t].kind != "numeric" or True:
                    pass
        cat = (lambda xs, dt: np.ascontiguousarray(np.concatenate(xs) if xs
                                                    else np.zeros(0, dt), dtype=dt))
        self.db = K.RelDB(cat(tuples, np.int32), np.asarray(rel_off, dtype=np.int64),
                          np.asarray(arity, dtype=np.int32), idx_off, dom_size,
                          cat(offsets, np.int64), cat(items, np.int32),
                          cat(nums, np.float64) if nums else np.zeros(1))

    def work(self, chain: Chain) -> float:
        """Estimated tuples visited per example to evaluate ``chain`` (before evaluating it):
        at each atom the mean bucket of its most selective bound argument, times the groups
        reached so far (an atom with one bound argument passes on its matches, one with
        several about one). Chains above ``max_work`` are not candidates: a join as dense as
        webkb's "pages sharing a term with a page sharing a term" costs 10^5 visits per
        example and per feature (the b^s of 9b's complexity analysis)."""
        total, groups = 0.0, 1.0
        for atom in chain:
            fixed = [j for j, (k, _) in enumerate(atom.args) if k != FRESH]
            s = min(self._mean_bucket(atom.rel, j) for j in fixed)
            total += groups * s
            groups *= s if len(fixed) == 1 else 1.0
        return total

    def _mean_bucket(self, r: int, pos: int) -> float:
        key = (r, pos)
        if key not in self._bucket:
            col = self.ds.relations[self.rel_names[r]].tuples[:, pos]
            self._bucket[key] = len(col) / max(1, len(np.unique(col)))
        return self._bucket[key]

    def const_values(self, r: int, pos: int) -> np.ndarray:
        key = (r, pos)
        if key not in self.consts:
            self.consts[key] = np.unique(self.ds.relations[self.rel_names[r]].tuples[:, pos])
        return self.consts[key]

    # -- enumeration -------------------------------------------------------------------------
    def candidates(self, context: Chain) -> list[Candidates]:
        """The candidate features of a node whose context is ``context``: one batch per
        prefix of the context (the empty one first). Every chain is in exactly one batch:
        the empty prefix gives the chains of 1..lookahead atoms, a prefix of p atoms those of
        exactly p + lookahead (a shorter extension of a longer prefix is also a
        lookahead-long extension of a shorter one)."""
        out = []
        for p in range(len(context) + 1):
            if p and p + self.lookahead > self.max_chain:
                break
            out.append(self.batch(tuple(context[:p])))
        return out

    def batch(self, prefix: Chain) -> Candidates:
        c = self._cache.get(prefix)
        if c is None:
            c = self._pack(self._extend(prefix))
            with self._lock:
                c = self._cache.setdefault(prefix, c)
        return c

    def _var_types(self, chain: Chain) -> list[str]:
        vt = list(self.ds.key_types)
        for atom in chain:
            vt = self._add_vars(vt, atom)
        return vt

    def _add_vars(self, vt: list[str], atom: Atom) -> list[str]:
        out = list(vt)
        for (kind, v), t in zip(atom.args, self.rel_types[atom.rel]):
            if kind == FRESH:
                while len(out) <= v:
                    out.append("")
                out[v] = t
        return out

    def _extensions(self, chain: Chain, vt: list[str]):
        """Atoms that may follow ``chain`` (variables typed ``vt``)."""
        prev = chain[-1] if chain else None
        if prev is not None:
            pf = set(prev.fresh())
            link = pf if pf else set(prev.bound())
        by_type: dict[str, list[int]] = {}
        for v, tv in enumerate(vt):
            by_type.setdefault(tv, []).append(v)
        for r, specs in self.modes:
            types = self.rel_types[r]
            choices = []
            for s, t in zip(specs, types):
                if s == "old":
                    vs = by_type.get(t)
                    if not vs:
                        break
                    choices.append([(BOUND, v) for v in vs])
                elif s == "new":
                    choices.append([(FRESH, -1)])
                else:
                    choices.append([(CONST, -1)])
            else:
                for combo in itertools.product(*choices):
                    nxt = len(vt)
                    args = []
                    for kind, v in combo:
                        if kind == FRESH:
                            args.append((FRESH, nxt))
                            nxt += 1
                        else:
                            args.append((kind, v))
                    atom = Atom(r, tuple(args))
                    if prev is not None and not any(k == BOUND and v in link
                                                    for k, v in atom.args):
                        continue
                    if atom in chain:
                        continue
                    yield atom

    def _extend(self, prefix: Chain) -> list[Chain]:
        from frcli._ext.relational import _relational as K

        p = len(prefix)
        lengths = range(1, min(self.lookahead, self.max_chain) + 1) if p == 0 else \
            [p + self.lookahead]
        top = max(lengths)
        out: list[Chain] = []

        def dfs(chain: Chain, vt: list[str]) -> None:
            if len(vt) + K.MAX_ARITY > K.MAX_VARS:
                return
            for atom in self._extensions(chain, vt):
                new = chain + (atom,)
                if len(new) in lengths:
                    out.append(new)
                if len(new) < top and not atom.has_const():
                    dfs(new, self._add_vars(vt, atom))

        dfs(tuple(prefix), self._var_types(prefix))
        return out

    def pattern(self, chain: Chain):
        """The chain's columns as (aggregate tuples, nominal domains, kernel arrays: aggs,
        kind, ncat), shared by every chain of the same length and last value."""
        kind, dom = self.last_value(chain[-1])
        key = (len(chain), kind, dom)
        p = self._patterns.get(key)
        if p is None:
            from frcli._ext.relational import _relational as K

            cols = self._agg_chains(len(chain), kind, dom)
            aggs = np.zeros((len(cols), K.MAX_CHAIN), dtype=np.int32)
            for i, (a, _) in enumerate(cols):
                aggs[i, :len(a)] = [AGG_CODE[x] for x in a]
            ck = np.array([0 if d is None else 1 for _, d in cols], dtype=np.int32)
            nc = np.array([0 if d is None else self.ds.domains[d].size for _, d in cols],
                          dtype=np.int32)
            p = ([a for a, _ in cols], [d for _, d in cols], aggs, ck, nc)
            self._patterns[key] = p
        return p

    def agg_chains(self, chain: Chain) -> list[tuple[tuple[str, ...], str | None]]:
        """(aggregates outermost first, nominal domain of the output or None) per column."""
        kind, dom = self.last_value(chain[-1])
        return self._agg_chains(len(chain), kind, dom)

    def _agg_chains(self, m: int, kind: int, dom: str | None):
        allowed = set(self.aggregates)
        if self.existential:
            return [(("sum",) * (m - 1) + ("count",), None)]
        if kind == L_NUMERIC:
            inner = ["count", "sum", "mean", "min", "max"]
        elif kind == L_CODE and self.ds.domains[dom].kind == "nominal":
            inner = ["count", "mode"]
        else:
            inner = ["count"]
        out = []

        def grow(aggs: list[str]) -> None:
            if len(aggs) == m:
                nominal = aggs[0] == "mode"
                out.append((tuple(aggs), dom if nominal else None))
                return
            follow = _AFTER_MODE if aggs[0] == "mode" else _NUMERIC_OUT
            for a in follow:
                if a in allowed:
                    grow([a] + aggs)

        for a in inner:
            if a in allowed:
                grow([a])
        return out

    def last_value(self, atom: Atom) -> tuple[int, str | None]:
        fresh = [(j, v) for j, (k, v) in enumerate(atom.args) if k == FRESH]
        if not fresh:
            return L_COUNT0, None
        if len(fresh) > 1:
            return L_TUPLE, None
        t = self.rel_types[atom.rel][fresh[0][0]]
        return (L_NUMERIC if self.ds.domains[t].kind == "numeric" else L_CODE), t

    def _pack(self, raw: list[Chain]) -> Candidates:
        from frcli._ext.relational import _relational as K

        AS = K.ATOM_STRIDE
        chains: list[Chain] = []
        for ch in raw:       # expand constants (last atom only) into one chain per value
            if self.max_work and self.work(ch) > self.max_work:
                with self._lock:
                    self.too_costly += 1
                continue
            last = ch[-1]
            cpos = [j for j, (k, _) in enumerate(last.args) if k == CONST]
            if not cpos:
                chains.append(ch)
                continue
            for vals in itertools.product(*(self.const_values(last.rel, j) for j in cpos)):
                args = list(last.args)
                for j, v in zip(cpos, vals):
                    args[j] = (CONST, int(v))
                chains.append(ch[:-1] + (Atom(last.rel, tuple(args)),))
        atoms, atom_start, last_kind, last_pos, last_num, n_vars = [], [0], [], [], [], []
        col_start, aggs, col_kind, col_ncat = [0], [], [], []
        col_chain, col_pat, patterns, kept = [], [], [], []
        n_cols = 0
        for ch in chains:
            pat = self.pattern(ch)
            P = len(pat[0])
            if P == 0:
                continue
            ci = len(kept)
            kept.append(ch)
            for atom in ch:
                rec = [atom.rel, len(atom.args), 0] + [0] * (AS - 3)
                for j, (k, v) in enumerate(atom.args):
                    rec[3 + 2 * j] = k
                    rec[4 + 2 * j] = v
                atoms.append(rec)
            atom_start.append(len(atoms))
            kind, dom = self.last_value(ch[-1])
            last_kind.append(kind)
            pos = -1
            if kind in (L_NUMERIC, L_CODE):
                pos = [j for j, (k, _) in enumerate(ch[-1].args) if k == FRESH][0]
            last_pos.append(pos)
            last_num.append(self.dom_num_off[dom] if kind == L_NUMERIC else -1)
            n_vars.append(len(self._var_types(ch)))
            aggs.append(pat[2])
            col_kind.append(pat[3])
            col_ncat.append(pat[4])
            col_chain.append(np.full(P, ci, dtype=np.intp))
            col_pat.append(np.arange(P, dtype=np.intp))
            patterns.append((pat[0], pat[1]))
            n_cols += P
            col_start.append(n_cols)

        def i32(x):
            return np.ascontiguousarray(np.asarray(x, dtype=np.int32).reshape(-1)) if len(x) \
                else np.zeros(0, np.int32)

        def cat(xs, dt):
            return np.ascontiguousarray(np.concatenate(xs).astype(dt, copy=False)) if xs \
                else np.zeros(0, dt)

        batch = K.Batch(i32(atoms), i32(atom_start), i32(last_kind), i32(last_pos),
                        np.asarray(last_num, dtype=np.int64), i32(n_vars), i32(col_start),
                        cat([a.ravel() for a in aggs], np.int32), cat(col_kind, np.int32),
                        cat(col_ncat, np.int32))
        return Candidates(batch, kept, cat(col_chain, np.intp),
                          cat(col_pat, np.intp), patterns)

    # -- reading features back ---------------------------------------------------------------
    def describe(self, chain: Chain, aggs: tuple[str, ...]) -> str:
        """``mean∘max t_by(X0,V1,V2), years_years(V1,V3)``: aggregates outermost first."""
        parts = []
        for atom in chain:
            args = []
            for (k, v), t in zip(atom.args, self.rel_types[atom.rel]):
                if k == CONST:
                    args.append(repr(self.ds.domains[t].values[v]))
                else:
                    args.append(("X" if v < len(self.ds.key_types) else "V") + str(v))
            parts.append(f"{self.rel_names[atom.rel]}({','.join(args)})")
        return f"{'∘'.join(aggs)} " + " ∧ ".join(parts)

    def atom_key(self, atom: Atom) -> str:
        """The atom's relation with its argument roles (re3py's typing key): ``t_by[b,f,f]``."""
        roles = "".join("bfc"[k] for k, _ in atom.args)
        return f"{self.rel_names[atom.rel]}[{','.join(roles)}]"
