# Sourced by the scripts that run `xqtb serve` in the background (loadtest.sh, flood_serve.sh).
# start_serve XQTB OUT LOG ARGS...: starts `XQTB serve ARGS...` with stdout to OUT and stderr to
# LOG, sets $pid, stops the server on exit (with `stop`), and waits for its listening line.
start_serve() {
    local xq="$1" out="$2" log="$3"
    shift 3
    "$xq" serve "$@" >"$out" 2>"$log" &
    pid=$!
    for _ in $(seq 100); do grep -q http "$out" && break; sleep 0.1; done
}
stop() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
