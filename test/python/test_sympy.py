"""chs.Problem.from_sympy with an installed chs (run by sympy_test.sh: PYTHONPATH at the prefix's
package, no CHS_LIBRARY): the package loads the prefix's libchs; examples/symbolic/pendulum.py,
built by the installed chs-gen, integrates like the built-in pendulum it restates (same q and p
at t = 3 to the tolerance); a description given as text works too; a broken one raises
chs.Error with chs-gen's message.
usage: test_sympy.py SOURCE_DIR PREFIX
"""
import os
import sys
import unittest

import numpy as np

import chs

SRC, PREFIX = sys.argv[1], sys.argv[2]
del sys.argv[1:]


class FromSympy(unittest.TestCase):
    def test_installed_library(self):
        self.assertTrue(chs.library_path().startswith(PREFIX), chs.library_path())

    def test_pendulum(self):
        pend = chs.Problem.from_sympy(os.path.join(SRC, "examples/symbolic/pendulum.py"))
        self.assertTrue(os.path.isfile(pend.plugin))
        kw = dict(formulation="dirac", method="erk:dp5", tf=3, rtol=1e-10, atol=1e-10)
        r = chs.run(problem=pend, **kw)
        b = chs.run(problem="pendulum", **kw)
        self.assertLess(np.max(np.abs(r.q[-1] - b.q[-1])), 1e-8)
        self.assertLess(np.max(np.abs(r.p[-1] - b.p[-1])), 1e-8)
        self.assertLess(np.max(r.pos_res), 1e-8)
        self.assertIn(r.names["q"], (["x", "y"], ["q1", "q2"]))
        # parameters of the generated problem
        r2 = chs.run(problem=pend.with_params("mass=2"), output=["t", "p", "v"], **kw)
        np.testing.assert_allclose(r2.v, r2.p / 2, rtol=1e-15, atol=0)

    def test_description_text_and_errors(self):
        with open(os.path.join(SRC, "examples/symbolic/pendulum.py")) as f:
            text = f.read()
        pend = chs.Problem.from_sympy(text)
        r = chs.run(problem=pend, method="erk:rk4", h=0.1, tf=1)
        self.assertEqual(r.q.shape, (11, 2))
        with self.assertRaises(chs.Error) as cm:
            chs.Problem.from_sympy(text.replace("P.potential(", "P.potentia("))
        self.assertIn("chs-gen", str(cm.exception))
        with self.assertRaises(chs.Error) as cm:
            chs.Problem.from_sympy("no/such/description.py")
        self.assertIn("not found", str(cm.exception))


if __name__ == "__main__":
    unittest.main(verbosity=2)
