/*
 * probe: what a directory of xqtb tables says about positions, one line each.
 *
 *     probe <tables-dir> [FEN ...]        (no FEN, or "-": FENs one per line on stdin)
 *
 * Build (from the repository's root, after `cargo build --release -p xqtb-c`):
 *
 *     cc -std=c99 -O2 -Icrates/xqtb-c/include examples/c/probe.c \
 *        target/release/libxqtb_c.a -lpthread -ldl -lm -o probe
 *
 * (or link the shared library: -Ltarget/release -lxqtb_c -Wl,-rpath,$PWD/target/release).
 *
 * Each line holds tab-separated fields, "-" standing for nothing:
 *
 *     fen=<FEN as given>  result=win|draw|loss  order=<n>  distance=<plies>
 *     best=<UCCI,...>  line=<UCCI,...>  dtm=<plies>[:<phase>,...]
 *
 * order and distance are the distance to conversion (both "-" for a draw); best lists the best
 * moves (Fang's Definition 9) in move order; line is the principal line, both sides playing a
 * best move, to the next capture, mate or ruling; dtm is the distance to mate ("-" for a draw,
 * or where the directory has no DTM tables), followed by the level's phases where it counts to
 * a ruling on perpetual check or chase instead (formats/dtm.md). KRKN, in both metrics:
 *
 *     fen=9/9/4k4/9/9/9/9/9/1n7/R2K5 w  result=win  order=1  distance=1  best=d0d1  line=d0d1  dtm=1:1
 *
 * A failure prints the status name and the library's message on stderr; the other positions
 * are still probed, and the exit status is 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xqtb.h"

/* The principal line's moves fit here unless the distance is longer (then it is fetched again). */
#define LINE_GUESS 256

static const char *result_name(int result)
{
    return result == XQTB_WIN ? "win" : result == XQTB_LOSS ? "loss" : "draw";
}

static void fail(const char *what, int status)
{
    fprintf(stderr, "probe: %s: %s: %s\n", what, xqtb_status_name(status), xqtb_last_error());
}

/* "\t<name>=<n>", or "-" for a draw's -1. */
static void print_number(const char *name, int n)
{
    if (n < 0)
        printf("\t%s=-", name);
    else
        printf("\t%s=%d", name, n);
}

static void print_best(const XqtbRoot *root)
{
    int printed = 0;
    printf("\tbest=");
    for (int i = 0; i < root->count; i++) {
        if (root->moves[i].best)
            printf("%s%s", printed++ ? "," : "", root->moves[i].ucci);
    }
    if (!printed)
        printf("-");
}

static void print_line(char (*moves)[6], int length)
{
    printf("\tline=%s", length ? "" : "-");
    for (int i = 0; i < length; i++)
        printf("%s%s", i ? "," : "", moves[i]);
}

static void print_dtm(const XqtbDtm *dtm, int status)
{
    print_number("dtm", status == XQTB_OK ? dtm->distance : -1);
    for (int i = 0; status == XQTB_OK && i < dtm->level_length; i++)
        printf("%c%u", i ? ',' : ':', (unsigned)dtm->level[i]);
}

/* Everything a position's line shows. */
typedef struct {
    XqtbRoot root;
    char guess[LINE_GUESS][6];
    char (*line)[6]; /* guess, or a longer line on the heap */
    int length;
    XqtbDtm dtm;
    int dtm_status; /* XQTB_ERR_MISSING_TABLE without DTM tables: no failure */
} Answer;

/* Fills *a for fen: the status of the first probe that failed. */
static int ask(const XqtbTablebase *tb, const char *fen, Answer *a)
{
    int status = xqtb_probe_root(tb, fen, &a->root);
    a->line = a->guess;
    if (status == XQTB_OK)
        status = xqtb_principal_line(tb, fen, a->guess, LINE_GUESS, &a->length);
    if (status == XQTB_OK && a->length > LINE_GUESS) {
        a->line = malloc((size_t)a->length * sizeof *a->line);
        if (!a->line) {
            perror("probe");
            exit(1);
        }
        status = xqtb_principal_line(tb, fen, a->line, a->length, &a->length);
    }
    if (status != XQTB_OK)
        return status;
    a->dtm_status = xqtb_probe_dtm(tb, fen, &a->dtm);
    return a->dtm_status == XQTB_ERR_MISSING_TABLE ? XQTB_OK : a->dtm_status;
}

static void print_answer(const char *fen, const Answer *a)
{
    printf("fen=%s\tresult=%s", fen, result_name(a->root.value.result));
    print_number("order", a->root.value.order);
    print_number("distance", a->root.value.distance);
    print_best(&a->root);
    print_line(a->line, a->length);
    print_dtm(&a->dtm, a->dtm_status);
    printf("\n");
}

/* Probes one position and prints its line (nothing if a probe fails); the status. */
static int probe(const XqtbTablebase *tb, const char *fen)
{
    static Answer a; /* 5 kB: kept off the stack */
    int status = ask(tb, fen, &a);
    if (status == XQTB_OK)
        print_answer(fen, &a);
    else
        fail(fen, status);
    if (a.line != a.guess)
        free(a.line);
    return status;
}

/* Probes the FENs on stdin, one per line; the number that failed. */
static int probe_stdin(const XqtbTablebase *tb)
{
    char fen[512];
    int failed = 0;
    while (fgets(fen, sizeof fen, stdin)) {
        fen[strcspn(fen, "\r\n")] = '\0';
        failed += probe(tb, fen) != XQTB_OK;
        fflush(stdout); /* a caller may wait for each answer before sending the next FEN */
    }
    return failed;
}

int main(int argc, char **argv)
{
    XqtbTablebase *tb;
    int status, failed = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: probe <tables-dir> [FEN ...]   (none or -: FENs on stdin)\n");
        return 2;
    }
    status = xqtb_open(argv[1], &tb);
    if (status != XQTB_OK) {
        fail(argv[1], status);
        return 1;
    }
    if (argc == 2 || (argc == 3 && strcmp(argv[2], "-") == 0))
        failed = probe_stdin(tb);
    else
        for (int i = 2; i < argc; i++)
            failed += probe(tb, argv[i]) != XQTB_OK;
    xqtb_close(tb);
    return failed ? 1 : 0;
}
