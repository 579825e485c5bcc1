#!/bin/sh
# A table of f(x) = x^4 - 2x^2 and its first two derivatives at five points in -2..2,
# one `gradcli eval` per point, as CSV.  Run it with:
#     sh examples/derivative_table.sh
# Set GRADCLI to use a gradcli other than the one on PATH.
set -eu
GRADCLI=${GRADCLI:-gradcli}

echo "x,f,df,d2f"
for x in -2 -1 0 0.5 2; do
    # --format csv prints a header and one row: input,wrt,value,d1,d2,error
    "$GRADCLI" eval "x^4 - 2x^2" --at "x=$x" --order 2 --format csv |
        tail -n 1 | cut -d, -f3-5 | sed "s/^/$x,/"
done
