#!/bin/sh
# Taylor polynomials of degree 5 about 0, and of log about 1, from one
# `gradcli eval` with several expressions (each is its own statement).
# Run it with:  sh examples/taylor.sh
set -eu
GRADCLI=${GRADCLI:-gradcli}

"$GRADCLI" eval "sin(x)" "exp(x)" "1/(1 - x)" --at x=0 --series 5 --digits 6
"$GRADCLI" eval "log(x)" --at x=1 --series 4 --digits 6
