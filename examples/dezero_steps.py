"""Code from "Deep Learning from Scratch 3" (DeZero steps 33-35) on gradcli.core.

Only the imports differ from the book:
    from dezero import Variable            ->  from gradcli.core import Variable
    import dezero.functions as F           ->  import gradcli.core.functions as F
    from dezero.utils import plot_dot_graph -> from gradcli.core.utils import plot_dot_graph

Run: python examples/dezero_steps.py [OUTDIR]  (writes tanh.dot there, or to a
new temporary directory it names; the current directory is left alone).
"""

import os
import sys
import tempfile

import numpy as np

import gradcli.core.functions as F
from gradcli.core import Variable
from gradcli.core.utils import get_dot_graph


def f(x):
    return x**4 - 2 * x**2


# Step 33: Newton's method, the second derivative by backprop through backprop.
x = Variable(np.array(2.0))
iters = 10
for i in range(iters):
    print(i, x)
    y = f(x)
    x.cleargrad()
    y.backward(create_graph=True)
    gx = x.grad
    x.cleargrad()
    gx.backward()
    gx2 = x.grad
    x.data -= gx.data / gx2.data

# Step 34: the derivatives of sin, one order after another.
x = Variable(np.array(1.0))
y = F.sin(x)
y.backward(create_graph=True)
for i in range(3):
    gx = x.grad
    x.cleargrad()
    gx.backward(create_graph=True)
    print(f"sin d{i + 2}:", x.grad)

# Step 35: the graph of the 2nd derivative of tanh, written as DOT text.
x = Variable(np.array(1.0))
y = F.tanh(x)
x.name = "x"
y.name = "y"
y.backward(create_graph=True)
iters = 1
for _ in range(iters):
    gx = x.grad
    x.cleargrad()
    gx.backward(create_graph=True)
gx = x.grad
gx.name = "gx" + str(iters + 1)
outdir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="gradcli-")
with open(os.path.join(outdir, "tanh.dot"), "w") as fh:
    fh.write(get_dot_graph(gx, verbose=False))
print("tanh 2nd derivative at 1:", gx)
print("graph written to", os.path.join(outdir, "tanh.dot"))
