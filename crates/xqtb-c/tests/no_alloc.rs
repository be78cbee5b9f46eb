//! The WDL probe of the board form is for a search's inner loop: once its table's blocks are in
//! the cache, it allocates nothing. A counting allocator (this test binary's global allocator)
//! counts the allocations the probing thread makes.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use xqtb_c::*;
use xqtb_core::{Color, Indexer, Position, Square};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// Safety: every call is passed on to the system allocator unchanged; the count is a
// thread-local `Cell` with a const initialiser, which itself never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // Safety: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // Safety: `ptr` came from `System.alloc` with `layout` (above).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // Safety: as for `dealloc`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

fn board_of(pos: &Position) -> [i8; 90] {
    std::array::from_fn(|i| match pos.piece_at(Square::new(i as u8)) {
        None => 0,
        Some(p) => p.role() as i8 + if p.color() == Color::Black { 8 } else { 0 },
    })
}

/// KNKA's boards of both sides' legal positions (every 7th index), and its colour-flipped twin
/// KAKN's, which the table serves through a flip.
fn boards() -> Vec<([i8; 90], i32)> {
    let ix = Indexer::new("KNKA".parse().unwrap()).unwrap();
    let mut boards = Vec::new();
    for i in (0..ix.size()).step_by(7) {
        for side in Color::ALL {
            let Some(pos) = ix.decode(i, side).filter(|p| !p.opponent_in_check()) else {
                continue;
            };
            for p in [pos.clone(), pos.flip_colors()] {
                let code = if p.turn() == Color::Red {
                    XQTB_RED
                } else {
                    XQTB_BLACK
                };
                boards.push((board_of(&p), code));
            }
        }
    }
    boards
}

#[test]
fn a_warm_wdl_probe_of_a_board_allocates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let opts = builder::builder::BuildOptions::new(dir.path());
    builder::builder::build("KNKA".parse().unwrap(), &opts, &builder::Silent).unwrap();
    let path = std::ffi::CString::new(dir.path().to_str().unwrap()).unwrap();
    let mut tb = std::ptr::null_mut();
    assert_eq!(unsafe { xqtb_open(path.as_ptr(), &mut tb) }, XQTB_OK);
    let boards = boards();
    let probe_all = || {
        let mut wins = 0;
        for (board, side) in &boards {
            let mut wdl = 9;
            assert_eq!(
                unsafe { xqtb_probe_wdl_board(tb, board.as_ptr(), *side, &mut wdl) },
                XQTB_OK
            );
            wins += usize::from(wdl == XQTB_WIN);
        }
        wins
    };
    // The first pass opens the table and fills the block cache (16 MiB: the whole table), which
    // allocates: the count sees this thread's allocations.
    let cold = allocations();
    let wins = probe_all();
    assert!(allocations() > cold);
    let before = allocations();
    assert_eq!(probe_all(), wins);
    let made = allocations() - before;
    assert!(boards.len() > 5_000 && wins > 0, "{} boards", boards.len());
    assert_eq!(
        made,
        0,
        "{made} allocations in {} warm probes",
        boards.len()
    );
    unsafe { xqtb_close(tb) };
}
