//! The game graph of one material as retrograde passes see it: vertices are index entries
//! `(side to move, index)`, edges the quiet moves between them (captures leave the table and are
//! looked up in the supporting tables). Shared by every pass that walks moves forwards (children
//! counting) or backwards (predecessors).
//!
//! The index folds a position with its mirror image unless both sides' defenders stand
//! symmetrically (then each has an entry of its own). The rules below make every entry's count
//! of quiet moves equal the number of updates its children send it.

use crate::index::{IndexError, Indexer, Split, StepCache};
use crate::piece::{Color, Role};
use crate::position::Position;

/// An entry of the game graph: a side to move and an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Node {
    /// The side to move.
    pub side: Color,
    /// The entry's index in the material's [`Indexer`].
    pub index: u64,
}

/// The position after a quiet move, played only when asked for: most moves the rule passes
/// look at reach entries whose index alone answers (resolved ones: KRCKR's first candidate
/// scan asks for 18 M of its 84 M moves' positions), so they are never played.
pub struct Child<'a> {
    pos: &'a Position,
    /// A copy of `pos` the moves are played on (made at the first move played).
    scratch: &'a mut Option<Position>,
    mv: crate::position::Move,
    undo: Option<crate::position::Undo>,
}

impl Child<'_> {
    /// The position after the move.
    #[inline]
    pub fn position(&mut self) -> &Position {
        let scratch = self.scratch.get_or_insert_with(|| self.pos.clone());
        if self.undo.is_none() {
            self.undo = Some(scratch.play(self.mv));
        }
        scratch
    }

    /// Takes the move back if it was played.
    #[inline]
    fn take_back(self) {
        if let (Some(undo), Some(scratch)) = (self.undo, self.scratch) {
            scratch.undo(self.mv, undo);
        }
    }
}

/// Which quiet moves a walk over children looks at. The narrower ones leave out only moves
/// that cannot matter to a caller that knows where it stands: all quiet moves but those that
/// cannot give check, or (for a side in check) those that leave every check as it was, which
/// are illegal and reach illegal entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moves {
    /// Every pseudo-legal quiet move.
    Quiet,
    /// The same, the king's first ([`Position::pseudo_quiet_king_first_until`]).
    KingFirst,
    /// The quiet moves that may give check ([`Position::pseudo_checks_until`]).
    Checks,
    /// A side in check: the quiet moves that may end it ([`Position::pseudo_evasions_until`]).
    Evasions,
}

/// The game graph of one material.
pub struct Graph {
    indexer: Indexer,
}

impl Graph {
    /// The game graph of the material `indexer` indexes.
    pub fn new(indexer: Indexer) -> Graph {
        Graph { indexer }
    }

    /// The material's index.
    pub fn indexer(&self) -> &Indexer {
        &self.indexer
    }

    /// The position an entry stands for, if it is a legal one (no two pieces on one point, the
    /// side not to move not in check).
    #[inline]
    pub fn position(&self, node: Node) -> Option<Position> {
        self.indexer
            .decode(node.index, node.side)
            .filter(|p| !p.opponent_in_check())
    }

    /// The children an entry's children count starts from: its legal quiet moves (each reaches
    /// a child entry whose predecessors include this entry once per such move).
    #[inline]
    pub fn quiet_moves(pos: &mut Position) -> u8 {
        pos.count_legal_quiet() as u8
    }

    /// The entry a quiet move `mv` of `pos` (the position entry `index` decodes to) reaches,
    /// `child` being the position after it, and whether that entry decodes to `child`'s mirror
    /// image. A move of a rook, horse, cannon or pawn keeps the defenders and the entry's
    /// orientation: a rank update instead of an encoding; a defender's move mostly changes only
    /// the pair: table lookups from `split`, the entry's [`Indexer::split`] (found on first use
    /// and kept for the position's other moves).
    #[inline(always)]
    pub fn child(
        &self,
        pos: &Position,
        index: u64,
        mv: crate::position::Move,
        child: &mut Child,
        split: &mut Option<Option<Split>>,
    ) -> (u64, bool) {
        let code = pos.piece_at(mv.from).map_or(0, |p| p.code());
        if let Some(c) = self.indexer.moved(index, code, mv.from, mv.to, pos) {
            debug_assert_eq!(
                self.indexer.encode_mirrored(child.position()).ok(),
                Some((c, false))
            );
            return (c, false);
        }
        let at = split.get_or_insert_with(|| self.indexer.split(index));
        let fast = at
            .as_ref()
            .and_then(|at| self.indexer.moved_defender(at, pos.turn(), mv.from, mv.to));
        if let Some(found) = fast {
            debug_assert_eq!(
                self.indexer.encode_mirrored(child.position()).ok(),
                Some(found)
            );
            return found;
        }
        self.indexer
            .encode_mirrored(child.position())
            .expect("a quiet move keeps the material")
    }

    /// Calls `f` with each quiet pseudo-legal move of `pos` (entry `at`'s position) among
    /// `moves` ([`Moves`]), the position after it (played only if `f` asks: [`Child`]), and the
    /// entry it reaches with its mirroring ([`Graph::child`]), until `f` returns true; true if it
    /// did. Pseudo-legal moves serve the rule passes: an illegal move reaches an illegal entry,
    /// never an unresolved one nor a member of their sets.
    #[inline(always)]
    pub fn any_child_among(
        &self,
        pos: &Position,
        at: u64,
        moves: Moves,
        f: impl FnMut(crate::position::Move, &mut Child, u64, bool) -> bool,
    ) -> bool {
        self.any_child_split(pos, at, None, moves, f)
    }

    /// [`Graph::any_child_among`], given `at` taken apart if known
    /// ([`crate::index::Decoder::decode_split`]).
    #[inline(always)]
    pub fn any_child_split(
        &self,
        pos: &Position,
        at: u64,
        split: Option<Split>,
        moves: Moves,
        mut f: impl FnMut(crate::position::Move, &mut Child, u64, bool) -> bool,
    ) -> bool {
        let mut scratch = None;
        let mut split = split.map(Some);
        let each = |mv| {
            let mut child = Child {
                pos,
                scratch: &mut scratch,
                mv,
                undo: None,
            };
            let (index, mirrored) = self.child(pos, at, mv, &mut child, &mut split);
            let stop = f(mv, &mut child, index, mirrored);
            child.take_back();
            stop
        };
        match moves {
            Moves::Quiet => pos.pseudo_quiet_until(each),
            Moves::KingFirst => pos.pseudo_quiet_king_first_until(each),
            Moves::Checks => pos.pseudo_checks_until(each),
            Moves::Evasions => pos.pseudo_evasions_until(each),
        }
    }

    /// Calls `emit` with every predecessor of `child` (the position of entry `index`), once per
    /// quiet move from that entry's position into `child`'s entry: exactly the updates its
    /// children count expects. Predecessors that are not legal positions are included (their
    /// entries are illegal, so updates to them do nothing): the legality test costs more than
    /// the updates it saves.
    ///
    /// If `child`'s entry is unfolded, it stands for `child` alone, and a predecessor counts only
    /// as the position its entry decodes to (its mirror image moves into the mirror entry, which
    /// resolves at the same ply). If `child`'s entry is folded, it stands for `child` and its
    /// mirror image, so a predecessor with an unfolded entry (a defender's retro move made it
    /// symmetric) has a mirror image with an entry of its own that moves into `child`'s entry
    /// too.
    #[inline]
    pub fn predecessors(
        &self,
        child: &Position,
        index: u64,
        emit: impl FnMut(Node),
    ) -> Result<(), IndexError> {
        self.predecessors_with(child, index, None, emit)
    }

    /// [`Graph::predecessors`], defender steps looked up through `steps` if given (a scan's
    /// cache, kept across its entries: [`Indexer::defender_parent`]).
    #[inline]
    pub fn predecessors_with(
        &self,
        child: &Position,
        index: u64,
        mut steps: Option<&mut StepCache>,
        mut emit: impl FnMut(Node),
    ) -> Result<(), IndexError> {
        let side = !child.turn();
        let mut emit = |index| emit(Node { side, index });
        let mut moves = crate::position::MoveList::new();
        child.retro_pseudo_moves(&mut moves);
        let mut split = None;
        // The defenders' symmetry is the pair's: with a cache, read from its placements.
        let child_unfolded = match steps.as_deref_mut() {
            Some(cache) => {
                let at = self.indexer.split_cached(cache, index);
                split = Some(at);
                at.map_or_else(
                    || child.defenders_symmetric(),
                    |at| self.indexer.split_symmetric(&at),
                )
            }
            None => child.defenders_symmetric(),
        };
        debug_assert_eq!(child_unfolded, child.defenders_symmetric());
        let mut copy = None;
        for &m in &moves {
            let code = child.piece_at(m.to).map_or(0, |p| p.code());
            // An attacker's retro move keeps the defenders, hence the pair and the (absent)
            // mirroring of `child`'s own entry: only that piece's group rank changes.
            if let Some(parent) = self.indexer.moved(index, code, m.to, m.from, child) {
                emit(parent);
                continue;
            }
            // A defender's retro move to a parent whose defenders are not symmetric on both
            // sides changes only the pair (and, if the parent is numbered through its mirror
            // image, the attackers' ranks): table lookups. An unfolded child counts a parent
            // only as its entry decodes (see above), so a mirrored one is skipped.
            let defender = matches!(
                Role::from_u8(code & 7),
                Some(Role::King | Role::Advisor | Role::Elephant)
            );
            if defender {
                let at = split.get_or_insert_with(|| match steps.as_deref_mut() {
                    Some(cache) => self.indexer.split_cached(cache, index),
                    None => self.indexer.split(index),
                });
                let parent = at.as_ref().and_then(|at| {
                    self.indexer
                        .defender_parent(steps.as_deref_mut(), at, side, m.to, m.from)
                });
                if let Some((parent, mirrored)) = parent {
                    if !(child_unfolded && mirrored) {
                        emit(parent);
                    }
                    continue;
                }
            }
            let q = copy.get_or_insert_with(|| child.clone());
            q.unplay(m);
            let (parent, mirrored) = self.indexer.encode_mirrored(q)?;
            if child_unfolded {
                if !mirrored {
                    emit(parent);
                }
            } else {
                emit(parent);
                let role = q.piece_at(m.from).map(|p| p.role());
                if matches!(role, Some(Role::King | Role::Advisor | Role::Elephant))
                    && q.defenders_symmetric()
                {
                    emit(self.indexer.encode(&q.mirror())?);
                }
            }
            q.play(m);
        }
        Ok(())
    }
}
