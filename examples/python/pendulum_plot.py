"""From a SymPy model to a plot: generate the pendulum of examples/symbolic/pendulum.py, integrate
it with chs and plot x(t), y(t) and the energy error (pendulum.png, when matplotlib is installed)."""
import os

import numpy as np

import chs

here = os.path.dirname(os.path.abspath(__file__))
pend = chs.Problem.from_sympy(os.path.join(here, "..", "symbolic", "pendulum.py"))
r = chs.run(problem=pend, formulation="dirac", method="erk:dp5", tf=10, rtol=1e-10, atol=1e-10)
print("%d records, %d steps, max energy error %.1e, max |g| %.1e" % (
    len(r.t), r.summary["steps"], np.max(r.energy_err), np.max(r.pos_res)))
print("q(10) =", r.q[-1], "named", r.names["q"])

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is not installed (Debian: python3-matplotlib): no plot")
else:
    fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True)
    for j, name in enumerate(r.names["q"]):
        ax1.plot(r.t, r.q[:, j], label=name)
    ax1.legend()
    ax2.semilogy(r.t[1:], r.energy_err[1:])
    ax2.set_xlabel("t")
    ax2.set_ylabel("energy error")
    fig.savefig("pendulum.png")
    print("wrote pendulum.png")
