#!/usr/bin/env bash
# A bounded flood of half-open connections against a release `xqtb serve` on loopback: opens
# --connections (1500) TCP connections that each send half a request head and stall, asks one
# normal request meanwhile, and waits (at most --wait 90 s) for the server to close them all;
# --rounds (1) floods in a row against the same server show whether what it keeps grows.
# Prints the server's RSS (VmRSS of /proc/PID/status) before, during and after, its peak
# (VmHWM), how many connections it held at once (its socket descriptors) and when it closed
# them. Fails if the normal request is not answered, a connection is still open at the end, or
# the server does not stop cleanly. docs/serve-threat-model.md records a run.
#
#   bash scripts/flood_serve.sh [--connections 1500] [--wait 90] [--rounds 1] [--xqtb PATH]
#                               [-- SERVE OPTIONS]
#
# The server serves an empty table directory (connections, not tables, are what is measured)
# with its default limits unless options follow `--`. Needs python3 (the flooding client).
set -euo pipefail
cd "$(dirname "$0")/.."
connections=1500 wait=90 rounds=1 xq=""
while [ $# -gt 0 ]; do
    case "$1" in
        --connections) connections=$2; shift 2 ;;
        --wait) wait=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --xqtb) xq=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "flood_serve: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ "$connections" -le 5000 ] || { echo "flood_serve: --connections is at most 5000" >&2; exit 2; }
[ "$wait" -le 300 ] || { echo "flood_serve: --wait is at most 300 s" >&2; exit 2; }
[ "$rounds" -le 20 ] || { echo "flood_serve: --rounds is at most 20" >&2; exit 2; }
if [ -z "$xq" ]; then
    cargo build --release --locked --quiet --bin xqtb
    xq="${CARGO_TARGET_DIR:-target}/release/xqtb"
fi
# The client holds every connection open at once.
ulimit -n $((connections + 256)) 2>/dev/null || ulimit -n "$(ulimit -Hn)"
dir=$(mktemp -d)
out=$(mktemp)
log=$(mktemp)
. scripts/serve_lib.sh
trap 'stop; rm -rf "$dir" "$out" "$log"' EXIT
start_serve "$xq" "$out" "$log" --dir "$dir" --addr 127.0.0.1:0 --quiet "$@"
port=$(grep -o 'http://127[0-9.]*:[0-9]*' "$out" | sed 's/.*://')
echo "== $xq serve $* (pid $pid, port $port), $(nproc) cores"
sleep 1
timeout $(((wait + 60) * rounds)) python3 - "$pid" "$port" "$connections" "$wait" "$rounds" <<'EOF'
import os, socket, sys, threading, time, urllib.request

pid, port, n, wait, rounds = (int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]),
                              float(sys.argv[4]), int(sys.argv[5]))

def status(field):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024  # MiB
    return float("nan")

def sockets():
    n = 0
    for f in os.listdir(f"/proc/{pid}/fd"):
        try:
            n += os.readlink(f"/proc/{pid}/fd/{f}").startswith("socket:")
        except OSError:
            pass
    return n

# Before the flood: the listener and the runtime's own (signal) sockets.
own = sockets()

def held():
    """The connections the server has accepted and holds."""
    return sockets() - own

print(f"== before: RSS {status('VmRSS'):.1f} MiB")


def flood():
    t0 = time.monotonic()
    conns = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /api/tables HTTP/1.1\r\nHost: flood\r\n")
        s.setblocking(False)
        conns.append(s)
    print(f"== {n} half-open connections opened in {time.monotonic() - t0:.2f} s")
    time.sleep(1)
    print(f"== during: RSS {status('VmRSS'):.1f} MiB, {held()} connections held "
          f"(the rest wait in the kernel's backlog)")

    normal = {}
    def ask():
        t = time.monotonic()
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/robots.txt", timeout=wait) as r:
                normal["status"] = r.status
        except Exception as e:
            normal["status"] = repr(e)
        normal["seconds"] = time.monotonic() - t
    asker = threading.Thread(target=ask)
    asker.start()

    open_ = set(range(n))
    closed_at = []
    most = 0
    while open_ and time.monotonic() - t0 < wait:
        for i in list(open_):
            try:
                data = conns[i].recv(4096)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if data == b"":
                open_.discard(i)
                closed_at.append(time.monotonic() - t0)
                conns[i].close()
        most = max(most, held())
        time.sleep(0.2)
    asker.join()
    print(f"== a normal request during the flood: {normal['status']} after {normal['seconds']:.1f} s")
    when = (f", the first after {min(closed_at):.1f} s, the last after {max(closed_at):.1f} s"
            if closed_at else f" in {wait:.0f} s")
    print(f"== closed by the server: {len(closed_at)} of {n}{when}; at most {most} held at once")
    time.sleep(2)
    print(f"== after: RSS {status('VmRSS'):.1f} MiB, {held()} connections held; "
          f"peak RSS (VmHWM) {status('VmHWM'):.1f} MiB")
    return open_, normal


for r in range(1, rounds + 1):
    if rounds > 1:
        print(f"== round {r} of {rounds}")
    open_, normal = flood()
    if open_:
        print(f"flood_serve: {len(open_)} connections still open after {wait:.0f} s", file=sys.stderr)
        sys.exit(1)
    if normal["status"] != 200:
        print("flood_serve: the normal request was not answered", file=sys.stderr)
        sys.exit(1)
EOF
kill -INT "$pid"
wait "$pid"
grep -q 'xqtb serve: stopped' "$out" || { echo "flood_serve: no clean stop" >&2; exit 1; }
echo "== stopped cleanly; server log: $(tr '\n' ' ' <"$log")"
