# golden_jobs.awk — SHOW JOBS tables in golden output with their times
# masked: in a table whose header has a "job name" column, the cells of the
# columns "started" and "last checkpoint at" have each digit replaced by N
# (same width, so the table stays aligned). Every other line is unchanged.
function cells(line, out,    n) {
    n = split(line, out, "|")
    return n
}
/^\| job name +\|/ {
    n = cells($0, h)
    delete mask
    for (i = 1; i <= n; i++) {
        c = h[i]
        gsub(/^ +| +$/, "", c)
        if (c == "started" || c == "last checkpoint at")
            mask[i] = 1
    }
    injobs = 1
    print
    next
}
injobs && /^\|/ {
    n = cells($0, r)
    line = ""
    for (i = 1; i <= n; i++) {
        c = r[i]
        if (i in mask)
            gsub(/[0-9]/, "N", c)
        line = line (i > 1 ? "|" : "") c
    }
    print line
    next
}
injobs && !/^\+/ { injobs = 0 }
{ print }
