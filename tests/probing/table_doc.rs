//! formats/table.md's worked example is the real writer's output: KRK is built here and its
//! bytes, in `xxd` layout, must appear verbatim in the document (header dump and the rest).

use crate::common::build_lib;
use std::path::Path;

/// `xxd -s <start>` of `bytes[start..]`: offset, eight 2-byte groups, two spaces, ASCII.
fn xxd(bytes: &[u8], start: usize) -> String {
    let mut out = String::new();
    for (k, line) in bytes[start..].chunks(16).enumerate() {
        let mut hex = String::new();
        for (j, b) in line.iter().enumerate() {
            hex += &format!("{b:02x}");
            if j % 2 == 1 && j != 15 {
                hex.push(' ');
            }
        }
        let ascii: String = line
            .iter()
            .map(|&b| {
                if (0x20..0x7f).contains(&b) {
                    b as char
                } else {
                    '.'
                }
            })
            .collect();
        out += &format!("{:08x}: {:<40} {ascii}\n", start + 16 * k, hex.trim_end());
    }
    out
}

#[test]
fn the_worked_example_is_the_writers_output() {
    let dir = tempfile::tempdir().unwrap();
    let opts = xqtb::builder::BuildOptions {
        memory: 64 << 20,
        rules: xqtb::fang::Rules::None,
        ..xqtb::builder::BuildOptions::new(dir.path())
    };
    build_lib("KRK", &opts);
    let bytes = std::fs::read(dir.path().join("KRK.xqtb")).unwrap();
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("formats/table.md"))
            .unwrap();
    assert!(doc.contains(&format!(
        "builds `KK.xqtb` (supporting) and `KRK.xqtb`, {} bytes",
        bytes.len()
    )));
    for (what, dump) in [
        ("header", xxd(&bytes[..256], 0)),
        ("body", xxd(&bytes, 256)),
    ] {
        assert!(
            doc.contains(&dump),
            "formats/table.md's {what} dump is not the writer's output; regenerate it with \
             `xxd` (§12):\n{dump}"
        );
    }
}
