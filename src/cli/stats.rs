//! `xqtb stats --dir <DIR> <MATERIAL> [--json]`

use std::path::PathBuf;
use xqtb::table::side_char;
use xqtb::tablebase::Tablebase;
use xqtb::{to_fen, Color, Material, Value};

#[derive(clap::Args)]
pub struct Args {
    /// Material signature (a colour-flipped twin is reported as its stored table).
    material: String,
    #[arg(long)]
    dir: PathBuf,
    /// Print `{"material", "sides": {"w": {"legal", "win", "draw", "loss", "longest_win":
    /// {"order", "distance", "fen"}, "histogram"}, "b": {...}}}`.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, out: super::Out) -> super::Result<()> {
    let material: Material = args.material.parse()?;
    let tb = Tablebase::new(&args.dir, 1 << 20);
    let t = tb.table(material)?;
    let h = t.file.header().clone();
    let mut sides = serde_json::Map::new();
    for side in 0..2 {
        // Histogram of distances over real positions (order 0 here), from the blocks.
        let mut hist: std::collections::BTreeMap<(u16, u16), u64> = Default::default();
        let be = h.block_entries as u64;
        for block in 0..h.blocks_per_side() {
            for (k, &code) in t.file.read_block(side, block)?.iter().enumerate() {
                if let Some(Value::Decided { order, distance }) = Value::from_code(code) {
                    let mult = t.indexer.multiplicity(block * be + k as u64) as u64;
                    *hist.entry((order, distance)).or_default() += mult;
                }
            }
        }
        let st = h.sides[side];
        let longest = st.longest_win.map(|l| {
            let pos = t
                .indexer
                .decode(l.index, Color::ALL[side])
                .expect("the longest win's entry decodes");
            (l.order, l.distance, to_fen(&pos))
        });
        if args.json {
            sides.insert(
                side_char(side).to_string(),
                serde_json::json!({
                    "legal": st.legal, "win": st.win, "draw": st.draw, "loss": st.loss,
                    "longest_win": longest.as_ref().map(|(o, d, f)| serde_json::json!({"order": o, "distance": d, "fen": f})),
                    "histogram": hist.iter().map(|((o, d), n)| serde_json::json!({"order": o, "distance": d, "positions": n})).collect::<Vec<_>>(),
                }),
            );
        } else {
            let pct = |x: u64| 100.0 * x as f64 / st.legal.max(1) as f64;
            writeln!(
                out,
                "{} to move: {} legal, {} win ({:.2}%), {} draw ({:.2}%), {} loss ({:.2}%)",
                ["Red", "Black"][side],
                st.legal,
                st.win,
                pct(st.win),
                st.draw,
                pct(st.draw),
                st.loss,
                pct(st.loss)
            )?;
            match &longest {
                Some((o, d, f)) => writeln!(out, "  longest win: {d} plies (order {o}): {f}")?,
                None => writeln!(out, "  longest win: none")?,
            }
            for ((o, d), n) in &hist {
                writeln!(out, "  order {o} distance {d:>4}: {n}")?;
            }
        }
    }
    if args.json {
        let json = serde_json::json!({"material": h.material.to_string(), "sides": sides});
        writeln!(out, "{json}")?;
    }
    Ok(())
}
