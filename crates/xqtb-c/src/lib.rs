//! # xqtb-c — probing xqtb's tables from C
//!
//! A C ABI over [`xqtb_core::Tablebase`], in the manner of Fathom for chess tables: open a
//! directory (a handle, and the largest table it holds), probe win/draw/loss during search,
//! probe the distance to conversion and to mate, probe the root (every legal move's value, the
//! best ones by Fang's Definition 9) and the principal line. Positions come as FEN text or as a board of 90
//! points with the side to move; moves go out in UCCI (`h2e2`). The header `include/xqtb.h` is
//! generated from this file by cbindgen (`scripts/c-header.sh`; a test checks it is current).
//!
//! Every function returns a status code ([`XQTB_OK`] or an `XQTB_ERR_*` code) and writes its
//! answer through an out-pointer; [`xqtb_last_error`] gives the calling thread's last failure
//! in words. Nothing unwinds across the boundary: a panic is caught and reported as
//! [`XQTB_ERR_PANIC`]. A handle may be shared between threads: every probe takes it by
//! `const` pointer (the tablebase is `Send + Sync`).

#![warn(missing_docs)]

use std::cell::RefCell;
use std::ffi::{c_char, c_int, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use xqtb_core::tablebase::{Dtm, MoveValue, DEFAULT_CACHE_BYTES};
use xqtb_core::{
    from_codes, parse_fen, Color, Outcome, Position, ProbeError, Square, Tablebase, Value,
};

/// Success.
pub const XQTB_OK: c_int = 0;
/// A null pointer, text that is not UTF-8, or an argument out of range.
pub const XQTB_ERR_ARGUMENT: c_int = 1;
/// A malformed FEN or board, or a position that cannot arise (the side not to move in check).
pub const XQTB_ERR_POSITION: c_int = 2;
/// The directory has no table for the position's material (or one its moves lead to).
pub const XQTB_ERR_MISSING_TABLE: c_int = 3;
/// A table is damaged, of another version, or does not belong with the others.
pub const XQTB_ERR_TABLE: c_int = 4;
/// The directory cannot be read.
pub const XQTB_ERR_IO: c_int = 5;
/// A bug in xqtb: caught, never unwound into the caller.
pub const XQTB_ERR_PANIC: c_int = 6;

/// Moves a position can have at most ([`XqtbRoot::moves`]).
pub const XQTB_MAX_MOVES: usize = 128;

/// Phases a DTM level can have at most ([`XqtbDtm::level`]): one per capture on the way to the
/// ruling, and the ruling's own, so fewer than the 32 pieces of a board.
pub const XQTB_MAX_LEVEL: usize = 32;

/// A loss for the side to move ([`XqtbValue::result`], the WDL probe's answer).
pub const XQTB_LOSS: c_int = -1;
/// A draw.
pub const XQTB_DRAW: c_int = 0;
/// A win for the side to move.
pub const XQTB_WIN: c_int = 1;

/// Red to move (the board form's `side`).
pub const XQTB_RED: c_int = 0;
/// Black to move.
pub const XQTB_BLACK: c_int = 1;

/// An open directory of tables.
pub struct XqtbTablebase {
    tablebase: Tablebase,
    largest: c_int,
}

/// A position's value for the side to move: `result` is [`XQTB_WIN`], [`XQTB_DRAW`] or
/// [`XQTB_LOSS`]; a decided position has the order of the Asian rules (0 for the plain result)
/// and the distance in plies to the next capture or mate (odd a win, even a loss); a draw has
/// both -1.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct XqtbValue {
    /// Win, draw or loss.
    pub result: c_int,
    /// The order, or -1 for a draw.
    pub order: c_int,
    /// Plies to conversion, or -1 for a draw.
    pub distance: c_int,
}

/// A position's distance-to-mate value for the side to move (`formats/dtm.md`): `result` as in
/// [`XqtbValue`]; `distance` the plies to mate (odd a win, even a loss), or -1 for a draw; and
/// the level, where the count ends. A mate's level is empty (`level_length` 0); a ruling on
/// perpetual check or chase has the phases `level[0..level_length]`, outermost first: `(0, …, 0,
/// k)` is phase `k` of the table reached after as many captures as zeros. Best play prefers, for
/// the winner, the lowest level (compared phase by phase, missing phases 0), then the shortest
/// distance.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct XqtbDtm {
    /// Win, draw or loss.
    pub result: c_int,
    /// Plies to mate (or to the ruling), or -1 for a draw.
    pub distance: c_int,
    /// How many of `level` are filled (0 for a mate or a draw).
    pub level_length: c_int,
    /// The level's phases, outermost first.
    pub level: [u16; XQTB_MAX_LEVEL],
}

/// One legal move at the root.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct XqtbMove {
    /// The move in UCCI (`h2e2`), NUL-terminated.
    pub ucci: [c_char; 6],
    /// Non-zero if it captures (a conversion into a smaller table).
    pub capture: c_int,
    /// Non-zero if it is a best move (Fang's Definition 9).
    pub best: c_int,
    /// What the move is worth to the side playing it.
    pub value: XqtbValue,
}

/// The root probe's answer: the position's value and every legal move's.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct XqtbRoot {
    /// The position's value.
    pub value: XqtbValue,
    /// How many of `moves` are filled.
    pub count: c_int,
    /// The legal moves, in move order.
    pub moves: [XqtbMove; XQTB_MAX_MOVES],
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// The calling thread's last failure in words (empty if none yet): valid until the thread's next
/// call into this library.
#[no_mangle]
pub extern "C" fn xqtb_last_error() -> *const c_char {
    LAST_ERROR.with_borrow(|e| e.as_ptr())
}

/// Records `message` as the thread's last error and returns `code`.
fn fail(code: c_int, message: &str) -> c_int {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with_borrow_mut(|e| *e = text);
    code
}

/// Runs `f`, turning its error or panic into a status code and the thread's last error.
fn guarded(f: impl FnOnce() -> Result<(), (c_int, String)>) -> c_int {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => XQTB_OK,
        Ok(Err((code, message))) => fail(code, &message),
        Err(_) => fail(XQTB_ERR_PANIC, "xqtb panicked (a bug): please report it"),
    }
}

type Failure = (c_int, String);

fn probe_failure(e: ProbeError) -> Failure {
    let code = match e {
        ProbeError::Missing { .. } => XQTB_ERR_MISSING_TABLE,
        ProbeError::Illegal => XQTB_ERR_POSITION,
        ProbeError::Directory { .. } => XQTB_ERR_IO,
        _ => XQTB_ERR_TABLE,
    };
    (code, e.to_string())
}

/// `ptr` as a reference, or an argument error naming `what`.
///
/// Safety: `ptr` is null or points to a live `T` for the call's duration.
unsafe fn arg<'a, T>(ptr: *const T, what: &str) -> Result<&'a T, Failure> {
    // Safety: the caller's contract (above).
    unsafe { ptr.as_ref() }.ok_or_else(|| (XQTB_ERR_ARGUMENT, format!("{what} is NULL")))
}

/// `ptr` as text, or an argument error naming `what`.
///
/// Safety: `ptr` is null or a NUL-terminated string live for the call's duration.
unsafe fn text<'a>(ptr: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if ptr.is_null() {
        return Err((XQTB_ERR_ARGUMENT, format!("{what} is NULL")));
    }
    // Safety: the caller's contract (above).
    unsafe { CStr::from_ptr(ptr) }
        .to_str()
        .map_err(|_| (XQTB_ERR_ARGUMENT, format!("{what} is not UTF-8")))
}

/// Writes `value` through `out`, or fails if it is NULL.
///
/// Safety: `out` is null or points to writable memory for a `T`.
unsafe fn put<T>(out: *mut T, value: T, what: &str) -> Result<(), Failure> {
    if out.is_null() {
        return Err((XQTB_ERR_ARGUMENT, format!("{what} is NULL")));
    }
    // Safety: the caller's contract (above); `write` does not read or drop the old contents.
    unsafe { out.write(value) };
    Ok(())
}

fn position_of_fen(fen: &str) -> Result<Position, Failure> {
    parse_fen(fen).map_err(|e| (XQTB_ERR_POSITION, format!("bad FEN {fen:?}: {e}")))
}

/// The board form's position: codes 0 (empty), 1–7 (Red king, rook, cannon, horse, pawn,
/// advisor, elephant), 9–15 (the same for Black), read as unsigned bytes.
///
/// Safety: `board` is null or points to 90 readable `int8_t`.
unsafe fn position_of_board(board: *const i8, side: c_int) -> Result<Position, Failure> {
    // `int8_t` and `uint8_t` share size and alignment: the same bytes, read unsigned.
    let board: &[u8; 90] = unsafe { arg(board.cast::<[u8; 90]>(), "board") }?;
    let turn = match side {
        XQTB_RED => Color::Red,
        XQTB_BLACK => Color::Black,
        _ => {
            return Err((
                XQTB_ERR_ARGUMENT,
                format!("side {side} is neither 0 (Red) nor 1 (Black)"),
            ))
        }
    };
    from_codes(board, turn).map_err(|e| (XQTB_ERR_POSITION, format!("bad board: {e}")))
}

fn value_of(v: Value) -> XqtbValue {
    match v {
        Value::Draw => XqtbValue {
            result: XQTB_DRAW,
            order: -1,
            distance: -1,
        },
        Value::Decided { order, distance } => XqtbValue {
            result: if distance % 2 == 1 {
                XQTB_WIN
            } else {
                XQTB_LOSS
            },
            order: order.into(),
            distance: distance.into(),
        },
    }
}

fn dtm_of(v: &Dtm) -> Result<XqtbDtm, Failure> {
    let mut answer = XqtbDtm {
        result: wdl_of(v.outcome()),
        distance: v.distance().map_or(-1, c_int::from),
        ..XqtbDtm::default()
    };
    let phases = v.level().map_or(&[][..], |l| l.phases());
    if phases.len() > XQTB_MAX_LEVEL {
        return Err((
            XQTB_ERR_TABLE,
            format!(
                "a level of {} phases (at most {XQTB_MAX_LEVEL})",
                phases.len()
            ),
        ));
    }
    answer.level[..phases.len()].copy_from_slice(phases);
    answer.level_length = phases.len() as c_int;
    Ok(answer)
}

fn wdl_of(o: Outcome) -> c_int {
    match o {
        Outcome::Win => XQTB_WIN,
        Outcome::Draw => XQTB_DRAW,
        Outcome::Loss => XQTB_LOSS,
    }
}

/// Opens the tables in `dir` (tables open on first probe, each with a 16 MiB block cache) and
/// writes a handle to `*out`, to be closed with [`xqtb_close`].
///
/// # Safety
/// `dir` is a NUL-terminated string; `out` points to writable memory for a pointer.
#[no_mangle]
pub unsafe extern "C" fn xqtb_open(dir: *const c_char, out: *mut *mut XqtbTablebase) -> c_int {
    // Safety: the caller's contract is this function's.
    unsafe { xqtb_open_with_cache(dir, DEFAULT_CACHE_BYTES, out) }
}

/// [`xqtb_open`] with a block cache of `cache_bytes` of decompressed blocks per open table (at
/// least one block is kept whatever the figure). An engine probing spread-out positions of
/// 8-piece tables, whose files are tens of megabytes, wants more than the default 16 MiB.
///
/// # Safety
/// `dir` is a NUL-terminated string; `out` points to writable memory for a pointer.
#[no_mangle]
pub unsafe extern "C" fn xqtb_open_with_cache(
    dir: *const c_char,
    cache_bytes: usize,
    out: *mut *mut XqtbTablebase,
) -> c_int {
    guarded(|| {
        let dir = Path::new(unsafe { text(dir, "dir") }?);
        let tablebase = Tablebase::open_with_cache(dir, cache_bytes).map_err(probe_failure)?;
        let largest = tablebase.largest().map_err(probe_failure)? as c_int;
        let handle = Box::into_raw(Box::new(XqtbTablebase { tablebase, largest }));
        unsafe { put(out, handle, "out") }.inspect_err(|_| {
            // Safety: `handle` came from `Box::into_raw` just above and was given to no one.
            drop(unsafe { Box::from_raw(handle) })
        })
    })
}

/// Closes a handle [`xqtb_open`] gave (NULL is ignored). No probe may use it after.
///
/// # Safety
/// `tb` is NULL or a handle from [`xqtb_open`] not closed yet.
#[no_mangle]
pub unsafe extern "C" fn xqtb_close(tb: *mut XqtbTablebase) {
    if !tb.is_null() {
        // Safety: the caller's contract: the pointer came from `Box::into_raw` in `xqtb_open`.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(tb) })));
    }
}

/// The number of pieces (kings included) of the largest table in the handle's directory when
/// it was opened, 0 if none or `tb` is NULL: positions with more pieces need not be probed.
///
/// # Safety
/// `tb` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn xqtb_largest(tb: *const XqtbTablebase) -> c_int {
    unsafe { tb.as_ref() }.map_or(0, |t| t.largest)
}

/// The board form of the FEN's position (as [`xqtb_probe_wdl_board`] takes it): its 90 codes
/// into `board`, the side to move into `*side`. For tools and tests that hold FENs; a search
/// keeps its own board.
///
/// # Safety
/// `fen` is a NUL-terminated string, `board` writable for 90 bytes, `side` writable.
#[no_mangle]
pub unsafe extern "C" fn xqtb_board_of_fen(
    fen: *const c_char,
    board: *mut i8,
    side: *mut c_int,
) -> c_int {
    guarded(|| {
        let pos = position_of_fen(unsafe { text(fen, "fen") }?)?;
        let codes: [i8; 90] = std::array::from_fn(|i| {
            let piece = pos.piece_at(Square::new(i as u8));
            // Codes are 0 to 15: they fit an `int8_t`.
            piece.map_or(0, |p| p.code() as i8)
        });
        let turn = match pos.turn() {
            Color::Red => XQTB_RED,
            Color::Black => XQTB_BLACK,
        };
        unsafe { put(board.cast::<[i8; 90]>(), codes, "board") }?;
        unsafe { put(side, turn, "side") }
    })
}

/// The FEN's position: win, draw or loss for the side to move into `*wdl` ([`XQTB_WIN`],
/// [`XQTB_DRAW`], [`XQTB_LOSS`]). For search: reads only the table's win/draw/loss blocks.
///
/// # Safety
/// `tb` is a live handle, `fen` a NUL-terminated string, `wdl` writable.
#[no_mangle]
pub unsafe extern "C" fn xqtb_probe_wdl(
    tb: *const XqtbTablebase,
    fen: *const c_char,
    wdl: *mut c_int,
) -> c_int {
    guarded(|| {
        let tb = unsafe { arg(tb, "tb") }?;
        let pos = position_of_fen(unsafe { text(fen, "fen") }?)?;
        let o = tb.tablebase.probe_wdl(&pos).map_err(probe_failure)?;
        unsafe { put(wdl, wdl_of(o), "wdl") }
    })
}

/// [`xqtb_probe_wdl`] of a board: 90 points by square number (`rank * 9 + file`, rank 0 Red's
/// back rank, file 0 Red's left: a0 = 0, i9 = 89), each 0 (empty), 1–7 (Red king, rook,
/// cannon, horse, pawn, advisor, elephant) or 9–15 (the same for Black); `side` [`XQTB_RED`] or
/// [`XQTB_BLACK`] to move. Parses no text: the form for a search's inner loop.
///
/// # Safety
/// `tb` is a live handle, `board` points to 90 readable bytes, `wdl` writable.
#[no_mangle]
pub unsafe extern "C" fn xqtb_probe_wdl_board(
    tb: *const XqtbTablebase,
    board: *const i8,
    side: c_int,
    wdl: *mut c_int,
) -> c_int {
    guarded(|| {
        let tb = unsafe { arg(tb, "tb") }?;
        let pos = unsafe { position_of_board(board, side) }?;
        let o = tb.tablebase.probe_wdl(&pos).map_err(probe_failure)?;
        unsafe { put(wdl, wdl_of(o), "wdl") }
    })
}

/// The FEN's position's value: order and distance to conversion ([`XqtbValue`]).
///
/// # Safety
/// `tb` is a live handle, `fen` a NUL-terminated string, `value` writable.
#[no_mangle]
pub unsafe extern "C" fn xqtb_probe_dtc(
    tb: *const XqtbTablebase,
    fen: *const c_char,
    value: *mut XqtbValue,
) -> c_int {
    guarded(|| {
        let tb = unsafe { arg(tb, "tb") }?;
        let pos = position_of_fen(unsafe { text(fen, "fen") }?)?;
        let v = tb.tablebase.probe_dtc(&pos).map_err(probe_failure)?;
        unsafe { put(value, value_of(v), "value") }
    })
}

/// [`xqtb_probe_dtc`] of a board (its form as in [`xqtb_probe_wdl_board`]).
///
/// # Safety
/// `tb` is a live handle, `board` points to 90 readable bytes, `value` writable.
#[no_mangle]
pub unsafe extern "C" fn xqtb_probe_dtc_board(
    tb: *const XqtbTablebase,
    board: *const i8,
    side: c_int,
    value: *mut XqtbValue,
) -> c_int {
    guarded(|| {
        let tb = unsafe { arg(tb, "tb") }?;
        let pos = unsafe { position_of_board(board, side) }?;
        let v = tb.tablebase.probe_dtc(&pos).map_err(probe_failure)?;
        unsafe { put(value, value_of(v), "value") }
    })
}

/// The FEN's position's distance-to-mate value ([`XqtbDtm`]), from the directory's DTM tables
/// (`<M>.xqdtm`, built with `--metric dtm`; [`XQTB_ERR_MISSING_TABLE`] names the one missing).
/// Slower than the DTC probe on a table's derived side, whose values come from the moves.
///
/// # Safety
/// `tb` is a live handle, `fen` a NUL-terminated string, `dtm` writable.
#[no_mangle]
pub unsafe extern "C" fn xqtb_probe_dtm(
    tb: *const XqtbTablebase,
    fen: *const c_char,
    dtm: *mut XqtbDtm,
) -> c_int {
    guarded(|| {
        let tb = unsafe { arg(tb, "tb") }?;
        let pos = position_of_fen(unsafe { text(fen, "fen") }?)?;
        let v = tb.tablebase.probe_dtm(&pos).map_err(probe_failure)?;
        unsafe { put(dtm, dtm_of(&v)?, "dtm") }
    })
}

/// [`xqtb_probe_dtm`] of a board (its form as in [`xqtb_probe_wdl_board`]).
///
/// # Safety
/// `tb` is a live handle, `board` points to 90 readable bytes, `dtm` writable.
#[no_mangle]
pub unsafe extern "C" fn xqtb_probe_dtm_board(
    tb: *const XqtbTablebase,
    board: *const i8,
    side: c_int,
    dtm: *mut XqtbDtm,
) -> c_int {
    guarded(|| {
        let tb = unsafe { arg(tb, "tb") }?;
        let pos = unsafe { position_of_board(board, side) }?;
        let v = tb.tablebase.probe_dtm(&pos).map_err(probe_failure)?;
        unsafe { put(dtm, dtm_of(&v)?, "dtm") }
    })
}

fn move_of(m: &MoveValue, best: bool) -> XqtbMove {
    let mut ucci = [0 as c_char; 6];
    for (c, b) in ucci.iter_mut().zip(m.mv.to_string().bytes()) {
        *c = b as c_char;
    }
    XqtbMove {
        ucci,
        capture: m.capture.into(),
        best: best.into(),
        value: value_of(m.for_mover()),
    }
}

/// The root: the FEN's position's value and every legal move's (to the side playing it), the
/// best ones (Fang's Definition 9: the shortest win of the lowest order, else a draw, else the
/// longest loss of the highest order) marked.
///
/// # Safety
/// `tb` is a live handle, `fen` a NUL-terminated string, `root` writable.
#[no_mangle]
pub unsafe extern "C" fn xqtb_probe_root(
    tb: *const XqtbTablebase,
    fen: *const c_char,
    root: *mut XqtbRoot,
) -> c_int {
    guarded(|| {
        let tb = unsafe { arg(tb, "tb") }?;
        let pos = position_of_fen(unsafe { text(fen, "fen") }?)?;
        let value = tb.tablebase.probe_dtc(&pos).map_err(probe_failure)?;
        let moves = tb.tablebase.probe_moves(&pos).map_err(probe_failure)?;
        let best = moves.iter().map(|m| m.for_mover().rank()).max();
        let mut answer = XqtbRoot {
            value: value_of(value),
            count: moves.len() as c_int,
            moves: [XqtbMove::default(); XQTB_MAX_MOVES],
        };
        for (slot, m) in answer.moves.iter_mut().zip(&moves) {
            *slot = move_of(m, Some(m.for_mover().rank()) == best);
        }
        unsafe { put(root, answer, "root") }
    })
}

/// The principal line from the FEN's position to its next conversion (both sides playing a best
/// move; where several are, the one leaving the lowest point number, then going to the lowest,
/// `rank * 9 + file`): up to `capacity` moves into `moves`, each
/// a NUL-terminated UCCI move of 6 bytes; `*length` the line's full length (more than
/// `capacity` if it did not fit; 0 for a draw).
///
/// # Safety
/// `tb` is a live handle, `fen` a NUL-terminated string, `moves` writable for `capacity` moves of
/// 6 bytes (or NULL with `capacity` 0), `length` writable.
#[no_mangle]
pub unsafe extern "C" fn xqtb_principal_line(
    tb: *const XqtbTablebase,
    fen: *const c_char,
    moves: *mut [c_char; 6],
    capacity: c_int,
    length: *mut c_int,
) -> c_int {
    guarded(|| {
        let tb = unsafe { arg(tb, "tb") }?;
        let pos = position_of_fen(unsafe { text(fen, "fen") }?)?;
        if capacity < 0 || (capacity > 0 && moves.is_null()) {
            return Err((
                XQTB_ERR_ARGUMENT,
                "moves is NULL or capacity negative".into(),
            ));
        }
        let line = tb.tablebase.principal_line(&pos).map_err(probe_failure)?;
        for (k, m) in line.moves.iter().take(capacity as usize).enumerate() {
            // Safety: k < capacity, and `moves` holds `capacity` entries (the caller's contract).
            unsafe { moves.add(k).write(move_of(m, true).ucci) };
        }
        unsafe { put(length, line.moves.len() as c_int, "length") }
    })
}

/// The name of a status code (`"XQTB_ERR_POSITION"`), or `"unknown"`: a static string.
#[no_mangle]
pub extern "C" fn xqtb_status_name(status: c_int) -> *const c_char {
    let name: &'static CStr = match status {
        XQTB_OK => c"XQTB_OK",
        XQTB_ERR_ARGUMENT => c"XQTB_ERR_ARGUMENT",
        XQTB_ERR_POSITION => c"XQTB_ERR_POSITION",
        XQTB_ERR_MISSING_TABLE => c"XQTB_ERR_MISSING_TABLE",
        XQTB_ERR_TABLE => c"XQTB_ERR_TABLE",
        XQTB_ERR_IO => c"XQTB_ERR_IO",
        XQTB_ERR_PANIC => c"XQTB_ERR_PANIC",
        _ => c"unknown",
    };
    name.as_ptr()
}
