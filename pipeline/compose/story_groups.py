"""Pure: which feed items report one story, grouped without comparing every pair of items.

Two items are one story (`same_story`) when they share a canonical URL, or when they were
published within 48 h of each other and their reduced titles are near-identical (difflib ratio at
least `TITLE_SIMILARITY`). A group is a connected piece of that relation: A–B and B–C put A, B and
C together even when A and C differ more. Asking `same_story` of every pair took 30–40 s for
a year of daily editions (200 feeds × 100 items), nearly all in difflib and in reducing titles
again for every pair. `dedupe` finds the same groups in three passes, each title reduced once:

1. Items with the same URL are joined.
2. Neighbours: titles are sorted, then sorted back to front; each title is joined to its
   neighbour when they share a prefix (or suffix) long enough to prove the ratio without difflib
   (`ratio` counts at least the longest common substring). This joins most reprints.
3. Completeness: each group from 2 is compared with the groups before it, but only with those
   sharing one of its rarest trigrams (the prefix filter of set-similarity joins, Chaudhuri,
   Ganti and Kaushik, ICDE 2006; two titles with a ratio ≥ 0.9 share many trigrams, see
   `_min_shared_grams`), and only when bounds over both groups' lengths, dates and letters
   (difflib's `quick_ratio`) leave a pair possible. Then its items are compared, with
   `same_story`'s own tests, until one pair matches.

Pass 2 only joins pairs `same_story` accepts and pass 3 only skips pairs it rejects, so the
groups are exactly those of the pairwise loop; `tests/test_story_groups.py` checks that on random
titles.
"""

from __future__ import annotations

import datetime as dt
import difflib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from pipeline.models.feeds import Feed, SnapshotItem
from pipeline.normalize.items import title_key

SAME_STORY_WITHIN = dt.timedelta(hours=48)
TITLE_SIMILARITY = 0.9
"""difflib ratio of reduced titles above which two items are the same story."""
GRAM = 3
"""Length of the title pieces groups are found by. On titles of random English words, 3 left a
third of the candidate groups that 2 (common letter pairs) did; longer pieces need more of them
per title for the same guarantee (`_min_shared_grams`)."""

Pair = tuple[Feed, SnapshotItem]


def same_story(a: SnapshotItem, b: SnapshotItem) -> bool:
    """Are `a` and `b` one story: the same canonical URL, or near-identical titles within 48 h?"""
    if a.url and a.url == b.url:
        return True
    if abs(a.published - b.published) > SAME_STORY_WITHIN:
        return False
    ka, kb = title_key(a.title), title_key(b.title)
    if not ka or not kb:
        return False
    matcher = difflib.SequenceMatcher(None, ka, kb, autojunk=False)
    return matcher.quick_ratio() >= TITLE_SIMILARITY and matcher.ratio() >= TITLE_SIMILARITY


def dedupe(pairs: Sequence[Pair]) -> list[list[Pair]]:
    """Return groups of the same story; each group's first member is the one to show."""
    items = [item for _, item in pairs]
    groups = _Groups([title_key(item.title) for item in items], [item.published for item in items])
    first_with: dict[str, int] = {}
    for j, item in enumerate(items):
        if item.url:
            groups.join(first_with.setdefault(item.url, j), j)
    groups.join_neighbours()
    groups.join_the_rest()
    found: dict[int, list[Pair]] = {}
    for j, pair in enumerate(pairs):
        found.setdefault(groups.group_of[j], []).append(pair)
    # Show the report from the feed we trust most; among equals, the earliest.
    return [sorted(g, key=lambda p: (-p[0].weight, p[1].published, p[0].id)) for g in
            found.values()]


@dataclass
class _Bounds:
    """What bounds the titles of a group's items that have one."""

    letters: frozenset[str]
    """The union of their `_letters`."""
    shortest: int
    longest: int
    earliest: dt.datetime
    latest: dt.datetime

    def __or__(self, other: _Bounds) -> _Bounds:
        return _Bounds(self.letters | other.letters, min(self.shortest, other.shortest),
                       max(self.longest, other.longest), min(self.earliest, other.earliest),
                       max(self.latest, other.latest))

    def may_match(self, other: _Bounds) -> bool:
        """Could a title here match one there? False is certain; True is a maybe."""
        if (self.earliest - other.latest > SAME_STORY_WITHIN
                or other.earliest - self.latest > SAME_STORY_WITHIN):
            return False
        # difflib's real_quick_ratio is best for the nearest lengths.
        if self.longest < other.shortest:
            short, long = self.longest, other.shortest
        elif other.longest < self.shortest:
            short, long = other.longest, self.shortest
        else:
            short = long = self.shortest
        if _ratio(short, short + long) < TITLE_SIMILARITY:
            return False
        # quick_ratio counts the shared letters; no pair shares more than the unions do.
        shared = len(self.letters & other.letters)
        return _ratio(shared, self.shortest + other.shortest) >= TITLE_SIMILARITY


class _Groups:
    """The groups of one call's items, as they are found.

    Groups merge smaller into larger, relabelling the smaller's items, so finding an item's group
    is one list look-up and all relabelling costs n log n. A group's number is that of one of its
    items; a group merged away keeps its number with no members.
    """

    def __init__(self, keys: list[str], published: list[dt.datetime]) -> None:
        self.keys = keys
        self.published = published
        self.group_of = list(range(len(keys)))
        self.members = [[j] for j in range(len(keys))]
        self.letters: list[frozenset[str]] = []
        self.bounds: list[_Bounds | None] = []
        """Per group, once pass 3 starts; None for a group without titles."""
        self.rare: list[list[str]] = []
        """Per group, the rare trigrams it is found by (`by_rare` keys)."""
        self.by_rare: dict[str, set[int]] = {}
        self.matcher = difflib.SequenceMatcher(None, autojunk=False)

    def join(self, a: int, b: int) -> None:
        """Put the groups of items `a` and `b` together."""
        ga, gb = self.group_of[a], self.group_of[b]
        if ga == gb:
            return
        if len(self.members[ga]) < len(self.members[gb]):
            ga, gb = gb, ga
        for j in self.members[gb]:
            self.group_of[j] = ga
        self.members[ga] += self.members[gb]
        self.members[gb] = []
        if self.bounds:
            ba, bb = self.bounds[ga], self.bounds[gb]
            self.bounds[ga] = ba | bb if ba and bb else ba or bb
            for gram in self.rare[gb]:
                holders = self.by_rare[gram]
                holders.discard(gb)
                holders.add(ga)
            self.rare[ga] += self.rare[gb]
            self.rare[gb] = []

    def join_neighbours(self) -> None:
        """Join titles to their neighbours in sorted order when a shared prefix (or, sorted back
        to front, suffix) proves the match."""
        titled = [j for j, key in enumerate(self.keys) if key]
        backwards = [key[::-1] for key in self.keys]
        for order in (sorted(titled, key=self.keys.__getitem__),
                      sorted(titled, key=backwards.__getitem__)):
            for a, b in pairwise(order):
                if self.group_of[a] != self.group_of[b] and self._similar(a, b, sure_only=True):
                    self.join(a, b)

    def join_the_rest(self) -> None:
        """Join every pair of groups that holds a matching pair of titles."""
        self.letters = [_letters(key) for key in self.keys]
        self.bounds = [None] * len(self.keys)
        self.rare = [[] for _ in self.keys]
        units = [g for g, members in enumerate(self.members) if members]
        titled = {g: [j for j in self.members[g] if self.keys[j]] for g in units}
        for g in units:
            if titled[g]:
                self.bounds[g] = _bounds_of(titled[g], self.letters, self.keys, self.published)
        rare = _rare_grams({g: [self.keys[j] for j in js] for g, js in titled.items() if js})
        for g in units:
            # Nothing has joined g yet: groups only join groups looked at before them.
            if titled[g]:
                self._link(g, titled[g], rare[g])

    def _link(self, g: int, own: list[int], rare: list[str] | None) -> None:
        """Join group `g` (items `own` with titles) to each group looked at before that holds a
        title matching one of its, then make it findable by its `rare` trigrams (None: too
        short to find by; then every group is looked at)."""
        near: set[int] = set()
        if rare is None:
            near.update(h for h, r in enumerate(self.rare) if r)
        else:
            for gram in rare:
                near.update(self.by_rare.get(gram, ()))
            near.update(self.by_rare.get("", ()))
        bounds = self.bounds[g]
        assert bounds is not None
        for h in near:
            other = self.bounds[h]
            # A group joined to ours earlier in this loop is empty now, or is ours.
            if (self.members[h] and self.group_of[g] != h and other and bounds.may_match(other)
                    and self._any_match(own, bounds, self.members[h], other)):
                self.join(h, g)
        mine = self.group_of[g]
        rare = rare if rare is not None else [""]  # "" marks groups every group looks at
        for gram in rare:
            self.by_rare.setdefault(gram, set()).add(mine)
        self.rare[mine] += rare

    def _any_match(self, own: list[int], bounds: _Bounds, theirs: list[int], other: _Bounds
                   ) -> bool:
        """Does an item of `own` match one of `theirs` (`bounds` and `other` bound them)?"""
        # Bounds per item first: a title that could match none of the other group's is skipped.
        own = [i for i in own if self._may_match(i, other)]
        theirs = [j for j in theirs if own and self.keys[j] and self._may_match(j, bounds)]
        return any(self._similar(i, j) for j in theirs for i in own)

    def _may_match(self, i: int, bounds: _Bounds) -> bool:
        """Could item `i`'s title match one bound by `bounds`? (quick_ratio's bound)"""
        shared = len(self.letters[i] & bounds.letters)
        return _ratio(shared, len(self.keys[i]) + bounds.shortest) >= TITLE_SIMILARITY

    def _similar(self, i: int, j: int, *, sure_only: bool = False) -> bool:
        """Does `same_story` match the titles of items `i` and `j` (dates included)?

        With `sure_only`, False also when only difflib could tell.
        """
        if i == j or not self.keys[i] or not self.keys[j]:
            return False
        if abs(self.published[i] - self.published[j]) > SAME_STORY_WITHIN:
            return False
        # same_story compares the earlier item's title with the later's; ratio is not symmetric.
        a, b = (i, j) if i < j else (j, i)
        ka, kb = self.keys[a], self.keys[b]
        length = len(ka) + len(kb)
        if _ratio(min(len(ka), len(kb)), length) < TITLE_SIMILARITY:  # real_quick_ratio
            return False
        if not sure_only and _ratio(len(self.letters[a] & self.letters[b]),
                                    length) < TITLE_SIMILARITY:  # quick_ratio
            return False
        # ratio ≥ its longest matching block ≥ the common prefix or suffix.
        if _ratio(max(_common_prefix(ka, kb), _common_suffix(ka, kb)), length) >= TITLE_SIMILARITY:
            return True
        if sure_only:
            return False
        self.matcher.set_seqs(ka, kb)  # difflib keeps its index of kb while kb stays the same
        return self.matcher.ratio() >= TITLE_SIMILARITY


def _ratio(matches: int, length: int) -> float:
    """Return difflib's ratio formula, computed as difflib does, so comparisons agree exactly."""
    return 2.0 * matches / length if length else 1.0


def _letters(key: str) -> frozenset[str]:
    """Return the multiset of `key`'s characters as a set: "a", "aa" for two a's.

    The size of two such sets' intersection is the `matches` of difflib's `quick_ratio`.
    """
    return frozenset([ch * k for ch, count in Counter(key).items() for k in range(1, count + 1)])


def _bounds_of(items: list[int], letters: list[frozenset[str]], keys: list[str],
               published: list[dt.datetime]) -> _Bounds:
    return _Bounds(frozenset().union(*(letters[j] for j in items)),
                   min(len(keys[j]) for j in items), max(len(keys[j]) for j in items),
                   min(published[j] for j in items), max(published[j] for j in items))


def _min_shared_grams(length: int) -> int:
    """Return how many trigrams (repeats counted) a title of `length` shares at least with any
    title whose ratio with it is ≥ TITLE_SIMILARITY (0: no bound).

    ratio = 2M/L, M the characters in difflib's matching blocks, L the two lengths summed. The
    blocks are separated by unmatched characters, so there are at most U + 1 of them, U = L − 2M;
    a block of k characters holds k − q + 1 q-grams found in the other title, so at least
    M − (q−1)(U+1) = (2q−1)M − (q−1)(L+1) are shared. With M ≥ sL/2 (s = TITLE_SIMILARITY) that
    is at least ((2q−1)s/2 − (q−1))L − (q−1), and L ≥ length × 2/(2−s): the other title is at
    least s/(2−s) as long (difflib's real_quick_ratio).
    """
    s, q = TITLE_SIMILARITY, GRAM
    per_length = (2 * q - 1) * s / 2 - (q - 1)
    if per_length <= 0:
        return 0
    # The small slack keeps float rounding on the safe side: one more gram compared, never less.
    return max(0, int(per_length * length * 2 / (2 - s) - (q - 1) - 1e-6))


def _rare_grams(titles: dict[int, list[str]]) -> dict[int, list[str] | None]:
    """Return, per group of `titles`, its rarest trigrams: so many that a group holding a title
    that matches one of its titles holds one of them too (None: no such few).

    If sets A and B share t elements, then under any one order of all elements, the first
    |A| − t + 1 of A and the first |B| − t + 1 of B share one. A group's set is its titles'
    trigrams; t is at least the fewest trigrams any of its titles shares with a match, less the
    title's repeated trigrams (a set counts them once). Rarest first keeps the prefixes selective.
    """
    grams: dict[int, set[str]] = {}
    least: dict[int, int] = {}
    for g, keys in titles.items():
        grams[g] = set()
        least[g] = min(_title_grams(key, grams[g]) for key in keys)
    counts: Counter[str] = Counter()
    for found in grams.values():
        counts.update(found)
    rare: dict[int, list[str] | None] = {}
    for g, found in grams.items():
        if least[g] < 1:
            rare[g] = None
            continue
        # Sorting by gram, then (stably) by count, gives every group the same total order.
        rare[g] = sorted(sorted(found), key=counts.__getitem__)[: len(found) - least[g] + 1]
    return rare


def _title_grams(key: str, into: set[str]) -> int:
    """Add the trigrams of `key` to `into`; return how many of them a match shares at least,
    counting repeated trigrams once."""
    found = {key[i:i + GRAM] for i in range(len(key) - GRAM + 1)}
    into |= found
    return _min_shared_grams(len(key)) - (max(len(key) - GRAM + 1, 0) - len(found))


def _common_prefix(a: str, b: str) -> int:
    """Return the length of the longest common prefix of `a` and `b` (by bisection)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _common_suffix(a: str, b: str) -> int:
    """Return the length of the longest common suffix of `a` and `b` (by bisection)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[len(a) - mid:] == b[len(b) - mid:]:
            low = mid
        else:
            high = mid - 1
    return low
