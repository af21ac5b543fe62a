# golden_sort.awk — makes result tables whose row order is not deterministic
# comparable (used by run_golden.sh for files with `-- golden: sort-results`).
#
# In every result table of the shell's output (rule, header, rule, rows,
# rule, "N rows in set"):
#   - without an `op` column: the rows are sorted (byte order); nothing else
#     changes (widths and the row count do not depend on the order);
#   - with an `op` column (an updating result): the changelog is applied —
#     +I and +U add their row, -U and -D remove one equal row (a removal of a
#     row that is not there prints a "-- golden: unmatched" line) — and the
#     final rows are printed sorted, without the op column, re-aligned, and
#     counted as "N rows after the changelog". The intermediate changes of a
#     parallel job depend on how its tasks interleave; the final rows do not.
# Everything else is copied. Values must not contain '|' and widths are
# counted in bytes (keep such files ASCII). POSIX awk (mawk).

function trim(s) { sub(/^ +/, "", s); sub(/ +$/, "", s); return s }

function rule(n,   i, s) {
    s = "+"
    for (i = 1; i <= n; i++) s = s dashes(W[i] + 2) "+"
    return s
}

function dashes(k,   s) { s = ""; while (k-- > 0) s = s "-"; return s }
function spaces(k,   s) { s = ""; while (k-- > 0) s = s " "; return s }

# Split a table line into C[1..n] (raw cells, padding kept); returns n.
function cells(line,   n, parts, i, m) {
    m = split(line, parts, "|")
    n = 0
    for (i = 2; i < m; i++) C[++n] = parts[i]
    return n
}

function sort_rows(n,   i, j, t) {
    for (i = 2; i <= n; i++) {
        t = R[i]
        for (j = i - 1; j >= 1 && R[j] > t; j--) R[j + 1] = R[j]
        R[j + 1] = t
    }
}

# Learn the alignment of column i from one raw cell: a cell padded on the
# left is right-aligned, one padded on the right is left-aligned.
function learn(i, raw) {
    if (raw ~ /^  /) RIGHT[i] = 1
    else if (raw ~ /  $/) RIGHT[i] = 0
}

function flush_table(   i, j, k, n, nc, key, line, v, cnt) {
    if (!isop) {
        sort_rows(nrows)
        print top; print head; print mid
        for (i = 1; i <= nrows; i++) print R[i]
        print bottom
        return
    }
    # Apply the changelog: live rows in L[1..nlive] (keys: cells joined by TAB).
    nc = cells(head) - 1
    for (i = 1; i <= nc; i++) { HN[i] = trim(C[i + 1]); W[i] = length(HN[i]); delete RIGHT[i]; learn(i, C[i + 1]) }
    nlive = 0
    for (i = 1; i <= nrows; i++) {
        cells(R[i])
        key = ""
        for (j = 1; j <= nc; j++) { learn(j, C[j + 1]); key = key (j > 1 ? "\t" : "") trim(C[j + 1]) }
        op = trim(C[1])
        if (op == "+I" || op == "+U") {
            L[++nlive] = key
        } else {
            for (k = 1; k <= nlive && L[k] != key; k++) ;
            if (k > nlive) { unmatched[++nun] = op " " key; continue }
            for (; k < nlive; k++) L[k] = L[k + 1]
            nlive--
        }
    }
    for (i = 1; i <= nlive; i++) {
        split(L[i], V, "\t")
        for (j = 1; j <= nc; j++) if (length(V[j]) > W[j]) W[j] = length(V[j])
    }
    for (i = 1; i <= nlive; i++) {
        split(L[i], V, "\t")
        line = "|"
        for (j = 1; j <= nc; j++) {
            v = V[j]
            line = line " " (RIGHT[j] ? spaces(W[j] - length(v)) v : v spaces(W[j] - length(v))) " |"
        }
        R[i] = line
    }
    sort_rows(nlive)
    line = "|"
    for (j = 1; j <= nc; j++)
        line = line " " (RIGHT[j] ? spaces(W[j] - length(HN[j])) HN[j] : HN[j] spaces(W[j] - length(HN[j]))) " |"
    if (nlive == 0) {
        print "Empty set after the changelog"
    } else {
        print rule(nc); print line; print rule(nc)
        for (i = 1; i <= nlive; i++) print R[i]
        print rule(nc)
    }
    for (i = 1; i <= nun; i++) { gsub(/\t/, " | ", unmatched[i]); print "-- golden: unmatched " unmatched[i] }
    nun = 0
    # The shell's "N rows in set" line counted the changelog: replaced.
    skipcount = 1
    cnt = nlive
    countline = cnt ? cnt " row" (cnt == 1 ? "" : "s") " after the changelog" : ""
}

BEGIN { state = 0 }
{
    if (state == 0) {
        if (skipcount && $0 ~ /^[0-9]+ rows? in set$/) {
            if (countline != "") print countline
            skipcount = 0; next
        }
        skipcount = 0
        if ($0 ~ /^\+[-+]+\+$/) { top = $0; state = 1; next }
        print; next
    }
    if (state == 1) {                     # header expected
        if ($0 ~ /^\|.*\|$/) { head = $0; state = 2; next }
        print top; state = 0; print; next
    }
    if (state == 2) {                     # rule under the header
        mid = $0; state = 3; nrows = 0
        cells(head); isop = (trim(C[1]) == "op")
        next
    }
    if (state == 3) {                     # rows until the bottom rule
        if ($0 ~ /^\+[-+]+\+$/) { bottom = $0; flush_table(); state = 0; next }
        R[++nrows] = $0; next
    }
}
END {
    if (state == 1) print top
    if (state == 2) { print top; print head; print mid }
    if (state == 3) { print top; print head; print mid; for (i = 1; i <= nrows; i++) print R[i] }
}
