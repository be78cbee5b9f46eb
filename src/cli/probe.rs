//! `xqtb probe --dir <DIR> <FEN>` and `xqtb probe --dir <DIR> --json -` (FENs on stdin).

use std::io::BufRead;
use std::path::PathBuf;
use xqtb::query;
use xqtb::tablebase::Tablebase;
use xqtb::Position;

/// The arguments of `xqtb probe`.
#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    dir: PathBuf,
    /// FEN or query-system string; `-` reads one per line from stdin.
    position: String,
    /// One JSON object per position: `{"fen", "qstring", "material", "side", "in_check",
    /// "result", "order", "distance", "moves": [{"move", "capture", "result", "order",
    /// "distance", "best", "wxf", "zh", "fen", "check"}]}`, moves best first
    /// (`formats/api.md`).
    #[arg(long)]
    json: bool,
    /// Block cache per open table, e.g. 16M.
    #[arg(long, value_parser = super::parse_size, default_value = "16M")]
    cache: u64,
}

/// Probes one position, or one per line of stdin for `-`, and prints its value and every move.
pub fn run(args: Args, out: super::Out) -> super::Result<()> {
    let tb = Tablebase::new(&args.dir, args.cache as usize);
    if args.position != "-" {
        let pos = super::position(&args.position)?;
        if let Some(p) = partial(&args, &pos)? {
            return writeln!(out, "{p}").map_err(Into::into);
        }
        return if args.json {
            let j = probe_json(&tb, &pos)?;
            writeln!(out, "{j}").map_err(Into::into)
        } else {
            probe_text(&tb, &pos, out)
        };
    }
    // Batch: one answer per input line, in order, flushed as it is written (a caller may be
    // waiting for it before sending the next line); a bad line — not UTF-8, blank, not a
    // position — is answered with an error in its place and the batch goes on.
    let mut failures = 0;
    let mut stdin = std::io::stdin().lock();
    let mut raw = Vec::new();
    loop {
        raw.clear();
        if stdin.read_until(b'\n', &mut raw)? == 0 {
            break;
        }
        let line = String::from_utf8_lossy(&raw);
        let text = line.trim();
        let result = if std::str::from_utf8(&raw).is_err() {
            Err("the line is not UTF-8 text".into())
        } else if text.is_empty() {
            Err("empty line: expected a FEN or a query-system string".into())
        } else {
            answer(&tb, text, &args)
        };
        match result {
            Ok(s) => writeln!(out, "{s}")?,
            Err(e) => {
                failures += 1;
                if args.json {
                    writeln!(
                        out,
                        "{}",
                        serde_json::json!({"fen": text, "error": e.to_string()})
                    )?;
                } else {
                    writeln!(out, "{text}: error: {e}")?;
                }
            }
        }
        out.flush()?;
    }
    if failures > 0 && !args.json {
        return Err(format!("{failures} position(s) could not be probed").into());
    }
    Ok(())
}

/// One batch line's answer: a JSON object, or the text block without its final newline.
fn answer(tb: &Tablebase, text: &str, args: &Args) -> super::Result<String> {
    let pos = super::position(text)?;
    if let Some(p) = partial(args, &pos)? {
        return Ok(p);
    }
    if args.json {
        return probe_json(tb, &pos);
    }
    let mut buf = Vec::new();
    probe_text(tb, &pos, &mut buf)?;
    Ok(String::from_utf8(buf)
        .expect("text output is UTF-8")
        .trim_end()
        .to_string())
}

fn probe_json(tb: &Tablebase, pos: &Position) -> super::Result<String> {
    Ok(serde_json::to_string(&query::probe(tb, pos)?)?)
}

/// A value as the text output shows it: `win 17 (order 0)`, `draw`.
fn value_text(result: &str, order: Option<u16>, distance: Option<u16>) -> String {
    match (order, distance) {
        (Some(o), Some(d)) => format!("{result} {d} (order {o})"),
        _ => result.to_string(),
    }
}

/// A distance to mate as the text output shows it: `win 37`, `loss 36 (level (0, 2))`, `draw`.
fn dtm_text(d: &xqtb::query::DtmEntry) -> String {
    match (&d.level, d.distance) {
        (Some(level), Some(distance)) if level.is_empty() => format!("{} {distance}", d.result),
        (Some(level), Some(distance)) => {
            let phases: Vec<String> = level.iter().map(u16::to_string).collect();
            format!("{} {distance} (level ({}))", d.result, phases.join(", "))
        }
        _ => d.result.to_string(),
    }
}

/// A move's distance to mate in the move list: `  dtm loss 2 *` (`*` best under DTM); empty
/// without one.
fn move_dtm_text(d: Option<&xqtb::query::DtmEntry>) -> String {
    match d {
        Some(d) => format!(
            "  dtm {}{}",
            dtm_text(d),
            if d.best == Some(true) { " *" } else { "" }
        ),
        None => String::new(),
    }
}

fn probe_text(tb: &Tablebase, pos: &Position, out: super::Out) -> super::Result<()> {
    let r = query::probe(tb, pos)?;
    writeln!(out, "{}", r.fen)?;
    writeln!(
        out,
        "{} ({} to move{}): {}",
        r.material,
        ["Red", "Black"][pos.turn().index()],
        if r.in_check { ", in check" } else { "" },
        value_text(r.result, r.order, r.distance)
    )?;
    if let Some(d) = &r.dtm {
        writeln!(out, "distance to mate: {}", dtm_text(d))?;
    }
    if let Some(rule) = &r.rule {
        writeln!(out, "{}", rule_text(rule, r.result))?;
    }
    for m in &r.moves {
        // `c` capture, `+` check, `*` best; then the pieces a quiet move chases.
        let chases = if m.chases.is_empty() {
            String::new()
        } else {
            format!("  chases {}", m.chases.join(" "))
        };
        let dtm = move_dtm_text(m.dtm.as_ref());
        writeln!(
            out,
            "  {}  {:<6} {:<22} {}{}{}{chases}{dtm}",
            m.ucci,
            m.wxf,
            value_text(m.result, m.order, m.distance),
            if m.capture { "c" } else { " " },
            if m.check { "+" } else { " " },
            if m.best { "*" } else { " " }
        )?;
    }
    if !r.moves.is_empty() {
        writeln!(
            out,
            "  (after each move: the value for the side to move then, the opponent, so \"loss 20\" \
             means the opponent loses; * best, c capture, + check; chases: the pieces a quiet move \
             chases under the Asian rules)"
        )?;
    }
    Ok(())
}

/// What a position of order above 0 is won by, in words.
fn rule_text(rule: &xqtb::query::RuleAhead, result: &str) -> String {
    let loser = if rule.loser == "w" { "Red" } else { "Black" };
    let act = match &rule.chased {
        Some(p) => format!("a perpetual chase of the piece on {p}"),
        None => "perpetual check".to_string(),
    };
    let by = rule.by.join(", ");
    let when = if rule.plies == 0 {
        "now".to_string()
    } else {
        format!("within {}", super::plies(rule.plies.into()))
    };
    let whose = if result == "win" {
        loser.to_string()
    } else {
        "the side to move".to_string()
    };
    format!(
        "by the Asian rules: {when} {whose} has nothing left but {act} (by the piece on {by}), \
         which loses"
    )
}

/// A position whose material has no table in the directory but a partial one
/// (`formats/partial.md`): its bounds, as text or JSON; `None` otherwise.
fn partial(args: &Args, pos: &Position) -> super::Result<Option<String>> {
    let Some(p) = query::partial_fallback(&args.dir, pos, args.cache as usize)? else {
        return Ok(None);
    };
    if args.json {
        return Ok(Some(serde_json::to_string(&p)?));
    }
    let exact = |order: Option<u16>, distance: Option<u16>| match (order, distance) {
        (Some(o), Some(d)) => format!(" {d} (order {o})"),
        _ => String::new(),
    };
    let mut text = format!(
        "{}\n{} ({} to move): {}{}\n",
        p.fen,
        p.material,
        if p.side == "w" { "Red" } else { "Black" },
        p.bounds,
        exact(p.order, p.distance),
    );
    if let Some(d) = &p.dtm {
        text += &format!("distance to mate: {}\n", dtm_text(d));
    }
    for m in &p.moves {
        let value = format!("{}{}", m.bounds, exact(m.order, m.distance));
        let dtm = move_dtm_text(m.dtm.as_ref());
        text += &format!(
            "  {}  {:<6} {:<28} {}{}{}{dtm}\n",
            m.ucci,
            m.wxf,
            value,
            if m.capture { "c" } else { " " },
            if m.check { "+" } else { " " },
            if m.best { "*" } else { " " }
        );
    }
    text += &format!(
        "  (a partial table, built without {}: bounds for the side to move, the value where they \
         meet; after each move, for the side to move then; * best, only where the values are \
         exact; c capture, + check)",
        p.without.join(", ")
    );
    Ok(Some(text))
}
