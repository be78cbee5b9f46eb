/*
 * threads: many threads probing through one shared xqtb handle agree with one thread.
 *
 *     threads <tables-dir> [positions-file|-] [threads=8] [rounds=20]
 *
 * Reads FENs one per line (from the file, or stdin when none or "-"); positions that fail (a bad
 * FEN, a missing table) are welcome: their status and message must come back the same too.
 * First, alone, it probes each position in four ways, the WDL and DTC probes of the FEN and of
 * the board (xqtb_probe_wdl, _wdl_board, _dtc, _dtc_board): the board's answers must equal the
 * FEN's. Then each thread probes every position in the four ways `rounds` times, starting at its
 * own place in the list, and compares each answer (status, values, and the thread's own
 * xqtb_last_error() on a failure) with the first. Exit status 0 if all agree, 1 otherwise.
 *
 * Build (from the repository's root, after `cargo build --release -p xqtb-c`):
 *
 *     cc -std=c99 -O2 -pthread -Icrates/xqtb-c/include examples/c/threads.c \
 *        target/release/libxqtb_c.a -lpthread -ldl -lm -o threads
 */
#define _POSIX_C_SOURCE 200809L /* strdup, getline, flockfile */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xqtb.h"

enum { WDL_FEN, WDL_BOARD, DTC_FEN, DTC_BOARD, KINDS };
static const char *const KIND_NAMES[KINDS] = {"wdl", "wdl_board", "dtc", "dtc_board"};

/* One probe's answer: a WDL probe's goes into value.result. */
typedef struct {
    int status;
    XqtbValue value;
    const char *error; /* a failure's message: a copy in the expected answers */
} Answer;

typedef struct {
    char *fen;
    int has_board; /* the FEN's board could be read here (a bad FEN is probed as text only) */
    int8_t board[90];
    int side;
    Answer expected[KINDS];
} Position;

typedef struct {
    const XqtbTablebase *tb;
    const Position *positions;
    size_t count, start;
    int rounds;
    long mismatches;
} Worker;

static Answer ask(const XqtbTablebase *tb, const Position *p, int kind)
{
    Answer a = {0};
    switch (kind) {
    case WDL_FEN: a.status = xqtb_probe_wdl(tb, p->fen, &a.value.result); break;
    case WDL_BOARD: a.status = xqtb_probe_wdl_board(tb, p->board, p->side, &a.value.result); break;
    case DTC_FEN: a.status = xqtb_probe_dtc(tb, p->fen, &a.value); break;
    default: a.status = xqtb_probe_dtc_board(tb, p->board, p->side, &a.value); break;
    }
    if (a.status != XQTB_OK)
        a.error = xqtb_last_error();
    return a;
}

static int same_value(const Answer *a, const Answer *b)
{
    return a->status == b->status && a->value.result == b->value.result &&
           a->value.order == b->value.order && a->value.distance == b->value.distance;
}

static int same(const Answer *a, const Answer *b)
{
    return same_value(a, b) && (a->status == XQTB_OK || strcmp(a->error, b->error) == 0);
}

static void print_answer(const char *label, const Answer *a)
{
    fprintf(stderr, "%s %s %d/%d/%d%s%s", label, xqtb_status_name(a->status), a->value.result,
            a->value.order, a->value.distance, a->error ? " " : "", a->error ? a->error : "");
}

/* One line on stderr, whole even when several threads report at once. */
static void report(const Position *p, int kind, const Answer *got, const Answer *want,
                   const char *why)
{
    flockfile(stderr);
    fprintf(stderr, "threads: %s %s: %s: ", p->fen, KIND_NAMES[kind], why);
    print_answer("got", got);
    print_answer(", expected", want);
    fprintf(stderr, "\n");
    funlockfile(stderr);
}

/* The answers of one thread alone; the number of board answers that differ from the FEN's. */
static int expect(const XqtbTablebase *tb, Position *positions, size_t count)
{
    int differ = 0;
    for (size_t i = 0; i < count; i++) {
        Position *p = &positions[i];
        p->has_board = xqtb_board_of_fen(p->fen, p->board, &p->side) == XQTB_OK;
        for (int kind = 0; kind < KINDS; kind++) {
            int board = kind == WDL_BOARD || kind == DTC_BOARD;
            if (board && !p->has_board)
                continue;
            p->expected[kind] = ask(tb, p, kind);
            if (p->expected[kind].error)
                p->expected[kind].error = strdup(p->expected[kind].error);
            if (board && !same_value(&p->expected[kind], &p->expected[kind - 1])) {
                report(p, kind, &p->expected[kind], &p->expected[kind - 1],
                       "the board form differs from the FEN's");
                differ++;
            }
        }
    }
    return differ;
}

static void *work(void *arg)
{
    Worker *w = arg;
    for (int round = 0; round < w->rounds; round++) {
        for (size_t k = 0; k < w->count; k++) {
            const Position *p = &w->positions[(w->start + k) % w->count];
            for (int kind = 0; kind < KINDS; kind++) {
                if ((kind == WDL_BOARD || kind == DTC_BOARD) && !p->has_board)
                    continue;
                Answer a = ask(w->tb, p, kind);
                if (!same(&a, &p->expected[kind])) {
                    report(p, kind, &a, &p->expected[kind], "differs from one thread's");
                    w->mismatches++;
                }
            }
        }
    }
    return NULL;
}

/* The FENs of `in`, one per line; their number into *count. */
static Position *read_positions(FILE *in, size_t *count)
{
    Position *positions = NULL;
    size_t capacity = 0, n = 0, size = 0;
    char *line = NULL;
    while (getline(&line, &size, in) >= 0) {
        line[strcspn(line, "\r\n")] = '\0';
        if (n == capacity) {
            capacity = capacity ? 2 * capacity : 256;
            positions = realloc(positions, capacity * sizeof *positions);
            if (!positions) {
                perror("threads");
                exit(1);
            }
        }
        memset(&positions[n], 0, sizeof positions[n]);
        positions[n++].fen = strdup(line);
    }
    free(line);
    *count = n;
    return positions;
}

/* Runs `threads` workers over the positions; the mismatches they found. */
static long run(const XqtbTablebase *tb, const Position *positions, size_t count, int threads,
                int rounds)
{
    pthread_t ids[64];
    Worker workers[64];
    long mismatches = 0;
    for (int t = 0; t < threads; t++) {
        workers[t] = (Worker){tb, positions, count, count * t / threads, rounds, 0};
        if (pthread_create(&ids[t], NULL, work, &workers[t]) != 0) {
            fprintf(stderr, "threads: cannot start thread %d\n", t);
            exit(1);
        }
    }
    for (int t = 0; t < threads; t++) {
        pthread_join(ids[t], NULL);
        mismatches += workers[t].mismatches;
    }
    return mismatches;
}

int main(int argc, char **argv)
{
    XqtbTablebase *tb;
    size_t count;
    int threads = argc > 3 ? atoi(argv[3]) : 8, rounds = argc > 4 ? atoi(argv[4]) : 20;
    FILE *in = argc > 2 && strcmp(argv[2], "-") != 0 ? fopen(argv[2], "r") : stdin;
    if (argc < 2 || !in || threads < 1 || threads > 64 || rounds < 1) {
        fprintf(stderr, "usage: threads <tables-dir> [positions-file|-] [threads 1-64] [rounds]\n");
        return 2;
    }
    int status = xqtb_open(argv[1], &tb);
    if (status != XQTB_OK) {
        fprintf(stderr, "threads: %s: %s: %s\n", argv[1], xqtb_status_name(status), xqtb_last_error());
        return 1;
    }
    Position *positions = read_positions(in, &count);
    if (in != stdin)
        fclose(in);
    int differ = expect(tb, positions, count);
    long mismatches = run(tb, positions, count, threads, rounds);
    printf("threads: %d threads x %d rounds x %zu positions: %ld mismatches, %d board/FEN differences\n",
           threads, rounds, count, mismatches, differ);
    xqtb_close(tb);
    return mismatches || differ || count == 0 ? 1 : 0;
}
