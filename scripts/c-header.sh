#!/usr/bin/env bash
# Regenerates crates/xqtb-c/include/xqtb.h from the C ABI's code with cbindgen (run through the
# test that checks it, so the header and the check are made the same way).
set -euo pipefail
cd "$(dirname "$0")/.."
XQTB_WRITE_HEADER=1 cargo test --locked --release -p xqtb-c --test abi the_header_is_generated_from_the_code
