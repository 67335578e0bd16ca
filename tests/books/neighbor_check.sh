#!/bin/sh
# neighbor_check.sh BOOK_NEIGHBOR_TXT K
# Fan's 09-atomic/neighbor2gpu.cu (and neighbor1cpu.cu) run on the first K atoms of
# xy.txt write ./neighbor.txt: per atom its number of neighbours and the neighbours
# (up to 10, the rest "NaN"), in increasing order. The book's neighbor.txt holds the
# answer for all atoms; an atom's neighbours among the first K are its neighbours
# there with an index below K, in the same order. (The book's file equals a replay
# in float and in double: no pair lies near the cutoff.)
book=$1 k=$2
[ -f neighbor.txt ] || { echo "FAIL: the program wrote no neighbor.txt"; exit 1; }
head -n "$k" "$book" | awk -v k="$k" '{
    c = 0; s = ""
    for (i = 2; i <= NF; i++) if ($i != "NaN" && $i + 0 < k) { c++; s = s " " $i }
    for (i = c; i < 10; i++) s = s " NaN"
    print c s
}' >neighbor.expected
if cmp -s neighbor.expected neighbor.txt; then
    echo "neighbor.txt: the book's neighbours of the first $k atoms ($(awk '{n += $1} END {print n / 2}' neighbor.txt) pairs)"
    exit 0
fi
echo "FAIL: neighbor.txt differs from the book's answer for the first $k atoms:"
diff neighbor.expected neighbor.txt | head -10
exit 1
