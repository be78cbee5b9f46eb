#!/usr/bin/env python3
"""Independent reference implementation of the xqtb position index (formats/index.md).

Written from the specification in formats/index.md, not from src/index.rs, so that the
two can check each other. Pure Python 3, standard library only.

Usage:
  index_ref.py size MATERIAL...              index size, pair count, others size
  index_ref.py encode MATERIAL FEN           the index of a position (FEN side field ignored)
  index_ref.py decode MATERIAL INDEX [w|b]   the placement of an index as FEN, or "collision"
  index_ref.py explain MATERIAL FEN          every intermediate number of encode (worked example)
  index_ref.py domains                       the point lists (domains) with their slots
  index_ref.py placements A E                defender placement counts for A advisors, E elephants
  index_ref.py rust-cases                    the table of tests/rules/index_spec.rs (from CASES below)
  index_ref.py compare MATERIAL < DUMP       check a dump of the crate's decode/encode:
                                             lines "INDEX<TAB>FEN-or-none<TAB>MULT<TAB>ENCODE"
  index_ref.py sample MATERIAL N SEED        N random (index, FEN) pairs of non-colliding entries
"""

import bisect
import random
import sys
from math import comb

INDEX_SCHEME_VERSION = 1

FILES = "abcdefghi"
RED, BLACK = 0, 1
# Group order of the "others" within one colour.
OTHER_ROLES = "RCNP"
# Material-signature / canonical order of the roles after the king.
ROLE_ORDER = "RCNPAB"
MAX_COUNT = {"K": 1, "R": 2, "C": 2, "N": 2, "P": 5, "A": 2, "B": 2}


def sq(file, rank):
    return rank * 9 + file


def sq_name(s):
    return f"{FILES[s % 9]}{s // 9}"


def mirror_sq(s):
    return sq(8 - s % 9, s // 9)


def own_rank(color, s):
    """Rank counted from the colour's own back rank (0..9)."""
    return s // 9 if color == RED else 9 - s // 9


# ---------------------------------------------------------------------------------------------
# Domains (spec section "Domains"): the points a piece of a colour and role may stand on,
# listed in increasing square number; a point's slot is its position in that list.


def _domain(color, role):
    pts = []
    for s in range(90):
        f, r = s % 9, own_rank(color, s)
        if role == "K":
            ok = 3 <= f <= 5 and r <= 2
        elif role == "A":
            ok = (f, r) in {(3, 0), (5, 0), (4, 1), (3, 2), (5, 2)}
        elif role == "B":
            ok = (f, r) in {(2, 0), (6, 0), (0, 2), (4, 2), (8, 2), (2, 4), (6, 4)}
        elif role == "P":
            ok = r >= 5 or (r in (3, 4) and f in (0, 2, 4, 6, 8))
        else:  # R, C, N: anywhere
            ok = True
        if ok:
            pts.append(s)
    return pts  # range(90) is increasing, so this list is sorted


DOMAIN = {(c, role): _domain(c, role) for c in (RED, BLACK) for role in "KABRCNP"}
SLOT = {key: {p: i for i, p in enumerate(pts)} for key, pts in DOMAIN.items()}

# ---------------------------------------------------------------------------------------------
# Combinatorial number system (colex rank of a k-subset).


def comb_rank(slots):
    """Rank of a set of slots: sum of C(s_i, i+1) over the slots sorted increasingly."""
    return sum(comb(s, i + 1) for i, s in enumerate(sorted(slots)))


def comb_unrank(rank, k):
    """The k slots (increasing) of a rank: greedy from the largest slot down."""
    out = []
    for i in range(k, 0, -1):
        c = i - 1
        while comb(c + 1, i) <= rank:
            c += 1
        out.append(c)
        rank -= comb(c, i)
    assert rank == 0
    return out[::-1]


# ---------------------------------------------------------------------------------------------
# Material signatures.


def parse_material(text):
    t = text.strip().upper().replace("H", "N").replace("E", "B")
    if not t.startswith("K") or "K" not in t[1:]:
        raise ValueError(f"bad material {text!r}")
    split = t.index("K", 1)
    sides = [t[1:split], t[split + 1:]]
    counts = []
    for side in sides:
        c = {r: 0 for r in ROLE_ORDER}
        for ch in side:
            if ch not in c:
                raise ValueError(f"bad letter {ch!r} in {text!r}")
            c[ch] += 1
            if c[ch] > MAX_COUNT[ch]:
                raise ValueError(f"too many {ch} in {text!r}")
        counts.append(c)
    return counts


def material_name(counts):
    return "".join("K" + "".join(r * c[r] for r in ROLE_ORDER) for c in counts)


def canonical_material(counts):
    key = [tuple(c[r] for r in ROLE_ORDER) for c in counts]
    return counts[::-1] if key[1] > key[0] else counts


# ---------------------------------------------------------------------------------------------
# Defender placements of one colour.


class Defenders:
    def __init__(self, color, n_adv, n_ele):
        self.color, self.n_adv, self.n_ele = color, n_adv, n_ele
        self.K, self.A, self.B = (DOMAIN[(color, r)] for r in "KAB")
        self.a_size = comb(len(self.A), n_adv)
        self.e_size = comb(len(self.B), n_ele)
        self.raw_size = len(self.K) * self.a_size * self.e_size
        # Placement numbers: the kept raw codes in increasing order.
        self.kept = []  # placement number -> raw code
        for raw in range(self.raw_size):
            king, advs, eles = self.squares_of_raw(raw)
            if king not in advs and king not in eles:
                self.kept.append(raw)
        self.number = {raw: p for p, raw in enumerate(self.kept)}
        self.mirror = [self.find(*self.mirror_squares(*self.squares(p))) for p in range(len(self.kept))]

    def __len__(self):
        return len(self.kept)

    def squares_of_raw(self, raw):
        k, rest = divmod(raw, self.a_size * self.e_size)
        a, e = divmod(rest, self.e_size)
        king = self.K[k]
        advs = [self.A[s] for s in comb_unrank(a, self.n_adv)]
        eles = [self.B[s] for s in comb_unrank(e, self.n_ele)]
        return king, advs, eles

    def squares(self, p):
        return self.squares_of_raw(self.kept[p])

    @staticmethod
    def mirror_squares(king, advs, eles):
        return mirror_sq(king), sorted(map(mirror_sq, advs)), sorted(map(mirror_sq, eles))

    def raw(self, king, advs, eles):
        ks = SLOT[(self.color, "K")][king]
        ar = comb_rank([SLOT[(self.color, "A")][s] for s in advs])
        er = comb_rank([SLOT[(self.color, "B")][s] for s in eles])
        return (ks * self.a_size + ar) * self.e_size + er

    def find(self, king, advs, eles):
        return self.number[self.raw(king, advs, eles)]

    def symmetric(self, p):
        return self.mirror[p] == p


# ---------------------------------------------------------------------------------------------
# The index of a material.


class Index:
    def __init__(self, material):
        self.counts = parse_material(material) if isinstance(material, str) else material
        self.name = material_name(self.counts)
        self.red = Defenders(RED, self.counts[RED]["A"], self.counts[RED]["B"])
        self.black = Defenders(BLACK, self.counts[BLACK]["A"], self.counts[BLACK]["B"])
        self.black_canon = [b for b in range(len(self.black)) if b <= self.black.mirror[b]]
        self.red_canon = [r for r in range(len(self.red)) if r <= self.red.mirror[r]]
        self.pair_start = []
        n = 0
        for r in self.red_canon:
            self.pair_start.append(n)
            n += len(self.black) if r < self.red.mirror[r] else len(self.black_canon)
        self.pairs = n
        self.groups = [
            (c, role, self.counts[c][role])
            for c in (RED, BLACK)
            for role in OTHER_ROLES
            if self.counts[c][role] > 0
        ]
        self.group_sizes = [comb(len(DOMAIN[(c, role)]), k) for c, role, k in self.groups]
        self.others_size = 1
        for g in self.group_sizes:
            self.others_size *= g
        self.size = self.pairs * self.others_size
        if self.size >= 2**64:
            raise ValueError(f"the index of {self.name} would have {self.size} >= 2^64 entries")

    # --- pair numbering ---
    def pair_number(self, r, b):
        j = self.red_canon.index(r)
        if r < self.red.mirror[r]:
            off = b
        else:
            off = self.black_canon.index(b)
        return self.pair_start[j] + off

    def pair_of(self, pair):
        j = bisect.bisect_right(self.pair_start, pair) - 1
        r = self.red_canon[j]
        off = pair - self.pair_start[j]
        b = off if r < self.red.mirror[r] else self.black_canon[off]
        return r, b

    def multiplicity(self, index):
        r, b = self.pair_of(index // self.others_size)
        return 1 if self.red.symmetric(r) and self.black.symmetric(b) else 2

    # --- encode ---
    def encode(self, pieces, explain=None):
        """pieces: list of (color, role, square). Returns the index."""
        log = explain if explain is not None else (lambda *a: None)
        have = [{r: 0 for r in "KRCNPAB"} for _ in (RED, BLACK)]
        for c, role, _ in pieces:
            have[c][role] += 1
        for c in (RED, BLACK):
            if have[c]["K"] != 1 or any(have[c][r] != self.counts[c][r] for r in ROLE_ORDER):
                raise ValueError("position does not have material " + self.name)
        squares = {(c, role): sorted(s for cc, rr, s in pieces if (cc, rr) == (c, role))
                   for c in (RED, BLACK) for role in "KRCNPAB"}
        for (c, role), ss in squares.items():
            for s in ss:
                if s not in SLOT[(c, role)]:
                    raise ValueError(f"{'Red' if c == RED else 'Black'} {role} on {sq_name(s)}: "
                                     "a point it can never occupy")
        placement = []
        for c, d in ((RED, self.red), (BLACK, self.black)):
            king, advs, eles = squares[(c, "K")][0], squares[(c, "A")], squares[(c, "B")]
            ks = SLOT[(c, "K")][king]
            aslots = [SLOT[(c, "A")][s] for s in advs]
            eslots = [SLOT[(c, "B")][s] for s in eles]
            raw = d.raw(king, advs, eles)
            p = d.number[raw]
            log(f"{'Red' if c == RED else 'Black'} defenders: king {sq_name(king)} "
                f"(square {king}, slot {ks}); advisors {[sq_name(s) for s in advs]} slots {aslots} "
                f"rank {comb_rank(aslots)} of {d.a_size}; elephants {[sq_name(s) for s in eles]} "
                f"slots {eslots} rank {comb_rank(eslots)} of {d.e_size}")
            log(f"  raw code = ({ks} * {d.a_size} + {comb_rank(aslots)}) * {d.e_size} + "
                f"{comb_rank(eslots)} = {raw}; placement = {p} (of {len(d)}); "
                f"mirror placement = {d.mirror[p]}")
            placement.append(p)
        r, b = placement
        mr, mb = self.red.mirror[r], self.black.mirror[b]
        flip = r > mr or (r == mr and b > mb)
        log(f"mirror? r={r} mirror(r)={mr}, b={b} mirror(b)={mb} -> {'yes' if flip else 'no'}")
        if flip:
            r, b = mr, mb
            log(f"  numbered as the mirror image: r={r}, b={b}; other pieces' points mirrored")
        j = self.red_canon.index(r)
        pair = self.pair_number(r, b)
        if r < self.red.mirror[r]:
            log(f"pair: r={r} is canonical entry #{j} (asymmetric), pair_start={self.pair_start[j]}, "
                f"offset b={b} -> pair {pair}")
        else:
            log(f"pair: r={r} is canonical entry #{j} (symmetric), pair_start={self.pair_start[j]}, "
                f"offset = position of b={b} among canonical black placements = "
                f"{self.black_canon.index(b)} -> pair {pair}")
        others = 0
        for (c, role, k), gsize in zip(self.groups, self.group_sizes):
            pts = squares[(c, role)]
            if flip:
                pts = [mirror_sq(s) for s in pts]
            slots = sorted(SLOT[(c, role)][s] for s in pts)
            rank = comb_rank(slots)
            terms = " + ".join(f"C({s},{i + 1})" for i, s in enumerate(slots))
            log(f"group {'Red' if c == RED else 'Black'} {role}x{k}: points "
                f"{[sq_name(s) for s in pts]} slots {slots}, rank {terms} = {rank} (of {gsize}); "
                f"others = {others} * {gsize} + {rank} = {others * gsize + rank}")
            others = others * gsize + rank
        index = pair * self.others_size + others
        log(f"index = pair * others_size + others = {pair} * {self.others_size} + {others} = {index}")
        return index

    # --- decode ---
    def decode(self, index):
        """The placement of an index as a list of (color, role, square), or None on a collision."""
        if not 0 <= index < self.size:
            raise ValueError("index out of range")
        pair, others = divmod(index, self.others_size)
        r, b = self.pair_of(pair)
        pieces = []
        for c, d, p in ((RED, self.red, r), (BLACK, self.black, b)):
            king, advs, eles = d.squares(p)
            pieces += [(c, "K", king)] + [(c, "A", s) for s in advs] + [(c, "B", s) for s in eles]
        ranks = []
        for gsize in reversed(self.group_sizes):
            others, rank = divmod(others, gsize)
            ranks.append(rank)
        ranks.reverse()
        for (c, role, k), rank in zip(self.groups, ranks):
            pieces += [(c, role, DOMAIN[(c, role)][s]) for s in comb_unrank(rank, k)]
        used = [s for _, _, s in pieces]
        if len(set(used)) != len(used):
            return None
        return pieces


# ---------------------------------------------------------------------------------------------
# FEN.


def parse_fen(fen):
    fields = fen.split()
    rows = fields[0].split("/")
    if len(rows) != 10:
        raise ValueError("FEN needs 10 ranks")
    pieces = []
    for i, row in enumerate(rows):
        rank, f = 9 - i, 0
        for ch in row:
            if ch.isdigit():
                f += int(ch)
            else:
                role = ch.upper().replace("H", "N").replace("E", "B")
                if role not in "KRCNPAB":
                    raise ValueError(f"bad FEN letter {ch!r}")
                pieces.append((RED if ch.isupper() else BLACK, role, sq(f, rank)))
                f += 1
        if f != 9:
            raise ValueError(f"FEN rank {rank} has {f} points")
    turn = "b" if len(fields) > 1 and fields[1] == "b" else "w"
    return pieces, turn


def to_fen(pieces, turn="w"):
    board = {s: (role if c == RED else role.lower()) for c, role, s in pieces}
    rows = []
    for rank in range(9, -1, -1):
        row, empty = "", 0
        for f in range(9):
            ch = board.get(sq(f, rank))
            if ch is None:
                empty += 1
            else:
                row += (str(empty) if empty else "") + ch
                empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows) + f" {turn} - - 0 1"


def mirror_fen(fen):
    pieces, turn = parse_fen(fen)
    return to_fen([(c, r, mirror_sq(s)) for c, r, s in pieces], turn)


# ---------------------------------------------------------------------------------------------
# The cases of tests/rules/index_spec.rs. Each position must be legal (the side not to move is not in
# check): the Rust test parses them with xqtb::parse_fen, which rejects illegal ones.

def _with_mirror(material, fen, note):
    """A case and its mirror image (same side to move)."""
    return [(material, fen, note), (material, mirror_fen(fen), "mirror image of the previous")]


CASES = [
    # KRK: the defenders are the kings alone. Red king d-file: canonical; f-file: flipped.
    *_with_mirror("KRK", "4k4/9/9/9/9/9/9/1R7/9/3K5 w - - 0 1", "red d0 (asymmetric, canonical)"),
    ("KRK", "4k4/9/9/9/9/9/9/9/9/R2K5 b - - 0 1", "red asymmetric, black symmetric"),
    ("KRK", "3k5/9/9/9/9/9/9/9/9/4K3R b - - 0 1", "red symmetric, black d9: canonical"),
    ("KRK", "5k3/9/9/9/9/9/9/9/9/4K3R b - - 0 1", "red symmetric, black f9: flipped"),
    ("KRK", "4k4/9/9/9/4R4/9/9/9/4K4/9 b - - 0 1", "both symmetric, a self-mirror position"),
    ("KRK", "9/3k5/9/9/9/9/9/9/5K3/8R b - - 0 1", "red f1: flipped"),
    # KNKA: Black king and advisor.
    *_with_mirror("KNKA", "3ak4/9/9/9/9/9/9/9/9/3K1N3 w - - 0 1", "red d0: canonical"),
    *_with_mirror("KNKA", "4k4/4a4/9/9/9/9/9/9/9/4K1N2 b - - 0 1", "both defenders symmetric"),
    ("KNKA", "5k3/4a4/9/9/9/9/9/2N6/9/4K4 w - - 0 1", "red symmetric, black f9: flipped"),
    ("KNKA", "3k5/4a4/9/9/4N4/9/9/9/9/5K3 b - - 0 1", "red f0: flipped, horse on the e-file"),
    ("KNKA", "9/3ka4/9/9/9/9/9/6N2/9/5K3 w - - 0 1", "the worked example of formats/index.md"),
    # KRKAABB.
    *_with_mirror("KRKAABB", "2bakab2/9/9/9/9/9/9/9/9/R2K5 w - - 0 1", "black symmetric, red d0"),
    ("KRKAABB", "3k1a3/4a4/4b4/9/2b6/2R6/9/9/9/4K4 b - - 0 1", "red symmetric, black d9"),
    *_with_mirror("KRKAABB", "3aka3/9/4b4/9/6b2/9/9/9/9/4K2R1 w - - 0 1",
                  "red symmetric, black asymmetric only through an elephant: flipped"),
    ("KRKAABB", "2bk5/4a4/3ab4/9/9/9/1R7/9/9/5K3 w - - 0 1", "red f0: flipped"),
    # KCPABKAABB.
    *_with_mirror("KCPABKAABB", "2bakab2/9/9/9/9/9/4P4/9/4A4/2B1K2C1 w - - 0 1",
                  "red asymmetric through its elephant (c0): canonical"),
    ("KCPABKAABB", "3akab2/9/b8/9/4P4/9/9/9/4A4/1C1K2B2 b - - 0 1", "red d0, pawn over the river"),
    *_with_mirror("KCPABKAABB", "3akab2/4C4/b8/9/2P6/9/9/4B4/4A4/4K4 w - - 0 1",
                  "red symmetric (e0 e1 e2), black asymmetric: elephants a7+g9 rank 17, "
                  "their mirror c9+i7 rank 14, so numbered as the mirror image"),
    *_with_mirror("KCPABKAABB", "2bakab2/9/9/9/9/2P6/9/4B4/4A4/1C2K4 b - - 0 1",
                  "both defender sets symmetric"),
    # KRCKR: kings only as defenders; three groups (Red R, Red C, Black R).
    *_with_mirror("KRCKR", "4k4/9/9/9/9/r8/9/2C6/9/3K1R3 w - - 0 1", "red d0: canonical"),
    *_with_mirror("KRCKR", "4k4/9/9/9/4C4/9/9/9/4K4/R7r b - - 0 1", "both kings symmetric"),
    # KPPKAA: one group of two red pawns; Black king and two advisors.
    *_with_mirror("KPPKAA", "3aka3/9/9/9/4P4/9/P8/9/9/3K5 w - - 0 1", "red d0: canonical"),
    ("KPPKAA", "3k5/4a4/5a3/9/9/2P1P4/9/9/4K4/9 b - - 0 1", "red symmetric, black d9"),
    *_with_mirror("KPPKAA", "3aka3/9/9/9/4P4/9/2P6/9/4K4/9 w - - 0 1", "both symmetric"),
    ("KPPKAA", "3aka3/9/9/9/4P4/9/4P4/9/4K4/9 w - - 0 1", "both symmetric, self-mirror"),
]

SIZE_MATERIALS = ["KK", "KRK", "KNKA", "KAKA", "KRKAABB", "KPPKAA", "KRCKR", "KABKAB",
                  "KCPABKAABB", "KAABBKAABB", "KRNKAABB", "KPPPPPKAABB", "KRRCCNNKAABB"]


def rust_cases():
    """Prints the tables of tests/rules/index_spec.rs."""
    cache = {}
    print("/// (material, FEN, index, decodes to the mirror image, multiplicity)")
    print("const CASES: &[(&str, &str, u64, bool, u8)] = &[")
    for mat, fen, note in CASES:
        ix = cache.setdefault(mat, Index(mat))
        pieces, _ = parse_fen(fen)
        i = ix.encode(pieces)
        back = sorted(ix.decode(i))
        if back == sorted(pieces):
            mirrored = False
        else:
            assert back == sorted((c, r, mirror_sq(s)) for c, r, s in pieces)
            mirrored = True
        m = ix.multiplicity(i)
        print(f"    // {note}")
        print(f'    ("{mat}", "{fen}", {i}, {str(mirrored).lower()}, {m}),')
    print("];")
    print()
    print("/// (material, pair_count, others_size, size): entries per side to move.")
    print("const SIZES: &[(&str, u64, u64, u64)] = &[")
    for mat in SIZE_MATERIALS:
        ix = cache.setdefault(mat, Index(mat))
        print(f'    ("{mat}", {ix.pairs}, {ix.others_size}, {ix.size}),')
    print("];")


def compare(material, lines):
    """Checks lines "INDEX<TAB>FEN-or-none<TAB>MULT<TAB>ENCODE-of-that-FEN" from the crate."""
    ix = Index(material)
    n = bad = none = 0
    seen = set()
    for line in lines:
        line = line.rstrip("\n")
        if not line:
            continue
        if line.startswith("size"):
            _, size = line.split()
            if int(size) != ix.size:
                print(f"size mismatch: crate {size}, spec {ix.size}")
                bad += 1
            continue
        i_s, fen, mult, enc = line.split("\t")
        i = int(i_s)
        seen.add(i)
        n += 1
        mine = ix.decode(i)
        if fen == "none":
            none += 1
            if mine is not None:
                bad += 1
                print(f"{i}: crate collision, spec {to_fen(mine)}")
            continue
        if mine is None:
            bad += 1
            print(f"{i}: crate {fen}, spec collision")
            continue
        theirs, _ = parse_fen(fen)
        if sorted(theirs) != sorted(mine):
            bad += 1
            print(f"{i}: crate {fen}, spec {to_fen(mine)}")
        if int(mult) != ix.multiplicity(i):
            bad += 1
            print(f"{i}: multiplicity crate {mult}, spec {ix.multiplicity(i)}")
        if int(enc) != i or ix.encode(theirs) != i:
            bad += 1
            print(f"{i}: encode crate {enc}, spec {ix.encode(theirs)}")
        # The mirror image encodes to the same index unless both defender sets are symmetric.
        mirrored = [(c, r, mirror_sq(s)) for c, r, s in theirs]
        em = ix.encode(mirrored)
        if ix.multiplicity(i) == 2 and em != i:
            bad += 1
            print(f"{i}: mirror image encodes to {em}")
    print(f"{material}: {n} indices compared ({none} collisions), {bad} mismatches")
    return bad == 0


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    cmd, args = argv[0], argv[1:]
    if cmd == "size":
        for m in args:
            try:
                ix = Index(m)
            except ValueError as e:
                print(f"{m}: {e}")
                continue
            print(f"{ix.name}: pairs {ix.pairs} x others {ix.others_size} = size {ix.size} "
                  f"(table {material_name(canonical_material(ix.counts))})")
    elif cmd == "encode":
        ix = Index(args[0])
        print(ix.encode(parse_fen(args[1])[0]))
    elif cmd == "explain":
        ix = Index(args[0])
        print(f"material {ix.name}: pairs {ix.pairs}, others_size {ix.others_size} "
              f"(groups {[(('Red', 'Black')[c], r, k) for c, r, k in ix.groups]} sizes "
              f"{ix.group_sizes}), size {ix.size}")
        print(f"Red placements {len(ix.red)}, Black placements {len(ix.black)}, "
              f"canonical Red {len(ix.red_canon)}, canonical Black {len(ix.black_canon)}")
        index = ix.encode(parse_fen(args[1])[0], explain=print)
        pieces = ix.decode(index)
        print(f"decode({index}) = {to_fen(pieces, parse_fen(args[1])[1])}; "
              f"multiplicity {ix.multiplicity(index)}")
    elif cmd == "decode":
        ix = Index(args[0])
        pieces = ix.decode(int(args[1]))
        print("collision" if pieces is None else to_fen(pieces, args[2] if len(args) > 2 else "w"))
    elif cmd == "domains":
        for c in (RED, BLACK):
            for role in "KABPR":
                pts = DOMAIN[(c, role)]
                print(f"{('Red', 'Black')[c]} {role} ({len(pts)}): "
                      + " ".join(f"{i}:{sq_name(s)}={s}" for i, s in enumerate(pts)))
    elif cmd == "placements":
        d = Defenders(RED, int(args[0]), int(args[1]))
        sym = sum(d.symmetric(p) for p in range(len(d)))
        print(f"A={args[0]} B={args[1]}: raw {d.raw_size}, placements {len(d)}, symmetric {sym}, "
              f"canonical {(len(d) + sym) // 2}")
    elif cmd == "rust-cases":
        rust_cases()
    elif cmd == "compare":
        return 0 if compare(args[0], sys.stdin) else 1
    elif cmd == "sample":
        ix = Index(args[0])
        rng = random.Random(int(args[2]))
        k = 0
        while k < int(args[1]):
            i = rng.randrange(ix.size)
            pieces = ix.decode(i)
            if pieces is not None:
                print(f"{i}\t{to_fen(pieces)}")
                k += 1
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
