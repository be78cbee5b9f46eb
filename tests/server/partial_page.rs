//! A partial table on the page, in a real browser (KRKN built without KRK): the position's
//! bounds, every legal move with the bounds after it (the capture into the withheld table
//! unknown, none marked best while the value is open), a click on a move going to the position
//! after it, the distance to mate where the value is exact, and the statistics page showing the
//! partial report the API gives.

use crate::common::{assert_ok, build_cmd};
use crate::support::{get, Server};
use crate::webdriver::{self, Browser};
use serde_json::json;

/// Red to move, the rook on a0 can take the horse on a1 (into KRK, withheld): at least a draw.
const FEN: &str = "9/9/4k4/9/9/9/9/9/n8/R2K5 w";

#[test]
fn a_partial_table_on_the_page() {
    let Some((chromium, driver)) = webdriver::browser_for("partial table browser test") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let args = ["--partial", "--without", "KRK", "--metric", "both"];
    let out = build_cmd("KRKN", dir.path(), &args).output().unwrap();
    assert_ok("build --partial", &out);
    let server = Server::start(dir.path());
    let b = Browser::start(&chromium, &driver);
    let shots = webdriver::screenshots();
    b.goto(&server.url(&format!("/?fen={}", FEN.replace(' ', "_"))));
    b.wait_for(
        "the partial moves",
        "return document.querySelectorAll('#moves li').length",
    );
    b.screenshot(&shots.join("partial-position.png"));
    let value = b.text("#value");
    assert!(value.contains("at least a draw"), "{value}");
    let moves = b.eval(
        "return [...document.querySelectorAll('#moves li')].map(li => \
         [li.dataset.move, li.textContent, li.classList.contains('best')])",
        json!([]),
    );
    let moves = moves.as_array().unwrap();
    let legal = xqtb::parse_fen(FEN).unwrap().legal_moves().len();
    assert_eq!(moves.len(), legal, "{moves:?}");
    let take = moves.iter().find(|m| m[0] == "a0a1").expect("a0a1 listed");
    assert!(take[1].as_str().unwrap().contains("unknown"), "{take:?}");
    assert!(
        moves.iter().all(|m| m[2] == false),
        "best while open: {moves:?}"
    );
    // A move goes to the position after it.
    b.click("#moves li[data-move='a0b0'] button");
    b.wait_for(
        "the position after a0b0",
        "return location.search.includes('1R1K5') && document.querySelector('#value')",
    );

    // Where the value is exact, the distance to mate too (`--metric both`): Red mates at once,
    // the rook move to d1 the one move that does (M0: Black mated after it).
    b.goto(&server.url("/?fen=3k5/9/9/9/9/9/9/9/n3R4/4K4_w"));
    b.wait_for(
        "the exact value",
        "return document.querySelector('#dtm-value')",
    );
    let dtm = b.text("#dtm-value");
    assert!(dtm.contains("mates in 1"), "{dtm}");
    let mate = b.text("#moves li[data-move='e1d1']");
    assert!(mate.contains("M0") && mate.contains('*'), "{mate}");
    assert!(b.text("#moves li[data-move='e1e5']").contains("M2"));

    // The statistics page: no complete KRKN here, so the partial report.
    b.goto(&server.url("/stats/KRKN"));
    b.wait_for(
        "the partial report",
        "return document.querySelector('#partial-shares')",
    );
    b.screenshot(&shots.join("partial-stats.png"));
    let api = get(&server.url("/api/partial/KRKN")).json();
    let all = b.text("#partial-shares tbody tr:first-child");
    let resolved = format!("{:.2}%", 100.0 * api["all"]["resolved"].as_f64().unwrap());
    assert!(all.contains(&resolved), "{all} lacks {resolved}");
    assert!(b.text("#partial-about").contains("KRK"));
}
