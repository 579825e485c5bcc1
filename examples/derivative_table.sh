#!/bin/sh
# A table of f(x) = x^4 - 2x^2 and its first two derivatives at five points in -2..2,
# as CSV, from one `gradcli eval`: an array --at is a sweep, one CSV row a point.
#     sh examples/derivative_table.sh
# (--at "x=-2:2:0.5" sweeps a range the same way.)
# Set GRADCLI to use a gradcli other than the one on PATH.
set -eu
GRADCLI=${GRADCLI:-gradcli}

echo "x,f,df,d2f"
# the sweep's columns are input,x,value,d1,d2,error: keep x to d2
"$GRADCLI" eval "x^4 - 2x^2" --at "x=[-2, -1, 0, 0.5, 2]" --order 2 --format csv |
    tail -n +2 | cut -d, -f2-5
