/*
 * bench: warm WDL probes per second through the C ABI's board form (xqtb_probe_wdl_board).
 *
 *     bench <tables-dir> <positions-file> <threads> <passes>
 *
 * Reads FENs one per line, turns each into the board form once, probes them all once to warm
 * the block caches (every probe must succeed), then times `threads` threads sharing one handle,
 * each probing the whole list `passes` times from its own place in it. Prints one line:
 *
 *     c threads=<t> positions=<n> probes=<p> wins=<w> seconds=<s> probes_per_s=<r>
 *
 * crates/xqtb-c/examples/wdl_bench.rs does the same from Rust, and scripts/c-bench.sh runs both.
 * Build (from the repository's root, after `cargo build --release -p xqtb-c`):
 *
 *     cc -std=c99 -O2 -pthread -Icrates/xqtb-c/include examples/c/bench.c \
 *        target/release/libxqtb_c.a -lpthread -ldl -lm -o bench
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, getline */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xqtb.h"

typedef struct {
    int8_t board[90];
    int side;
} Board;

typedef struct {
    const XqtbTablebase *tb;
    const Board *boards;
    size_t count, start;
    long passes;
    long wins; /* printed: the Rust bench over the same list must count as many */
} Worker;

static void die(const char *what, const char *why)
{
    fprintf(stderr, "bench: %s: %s\n", what, why);
    exit(1);
}

/* The boards of the FENs in `path`, one per line; their number into *count. */
static Board *read_boards(const char *path, size_t *count)
{
    FILE *in = fopen(path, "r");
    Board *boards = NULL;
    size_t capacity = 0, n = 0, size = 0;
    char *line = NULL;
    if (!in)
        die(path, "cannot open");
    while (getline(&line, &size, in) >= 0) {
        if (n == capacity) {
            capacity = capacity ? 2 * capacity : 1024;
            boards = realloc(boards, capacity * sizeof *boards);
            if (!boards)
                die(path, "out of memory");
        }
        if (xqtb_board_of_fen(line, boards[n].board, &boards[n].side) != XQTB_OK)
            die(line, "not a FEN");
        n++;
    }
    free(line);
    fclose(in);
    *count = n;
    return boards;
}

/* Probes boards [from, to): the wins among them. */
static long probe_range(const Worker *w, size_t from, size_t to)
{
    long wins = 0;
    for (size_t i = from; i < to; i++) {
        int wdl = XQTB_DRAW;
        xqtb_probe_wdl_board(w->tb, w->boards[i].board, w->boards[i].side, &wdl); /* see warm() */
        wins += wdl == XQTB_WIN;
    }
    return wins;
}

static void *work(void *arg)
{
    Worker *w = arg;
    for (long pass = 0; pass < w->passes; pass++)
        w->wins += probe_range(w, w->start, w->count) + probe_range(w, 0, w->start);
    return NULL;
}

/* Probes every board once, so the timed passes find the blocks they need cached. */
static void warm(const XqtbTablebase *tb, const Board *boards, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        int wdl, status = xqtb_probe_wdl_board(tb, boards[i].board, boards[i].side, &wdl);
        if (status != XQTB_OK)
            die(xqtb_status_name(status), xqtb_last_error());
    }
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    XqtbTablebase *tb;
    pthread_t ids[64];
    Worker workers[64];
    size_t count;
    int threads = argc == 5 ? atoi(argv[3]) : 0;
    long passes = argc == 5 ? atol(argv[4]) : 0;
    if (threads < 1 || threads > 64 || passes < 1) {
        fprintf(stderr, "usage: bench <tables-dir> <positions-file> <threads 1-64> <passes>\n");
        return 2;
    }
    int status = xqtb_open(argv[1], &tb);
    if (status != XQTB_OK)
        die(xqtb_status_name(status), xqtb_last_error());
    Board *boards = read_boards(argv[2], &count);
    if (count == 0)
        die(argv[2], "no positions");
    warm(tb, boards, count);
    double start = now();
    for (int t = 0; t < threads; t++) {
        workers[t] = (Worker){tb, boards, count, count * t / threads, passes, 0};
        if (pthread_create(&ids[t], NULL, work, &workers[t]) != 0)
            die("pthread_create", "cannot start a thread");
    }
    long wins = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(ids[t], NULL);
        wins += workers[t].wins;
    }
    double seconds = now() - start, probes = (double)count * passes * threads;
    printf("c threads=%d positions=%zu probes=%.0f wins=%ld seconds=%.3f probes_per_s=%.0f\n",
           threads, count, probes, wins, seconds, probes / seconds);
    xqtb_close(tb);
    free(boards);
    return 0;
}
