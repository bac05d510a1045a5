"""The planar double pendulum in Cartesian coordinates, as chs' built-in `double-pendulum` (same
parameters and defaults): q = (x1, y1, x2, y2), M = diag(m1, m1, m2, m2),
V = gravity (m1 y1 + m2 y2), g1 = 1/2 (x1^2 + y1^2 - L1^2), g2 = 1/2 (|q2 - q1|^2 - L2^2).
The initial state comes from the angles theta1, theta2 (from the downward vertical) and the
angular velocities omega1, omega2.
"""
from chs_gen import Problem, sp

P = Problem("double-pendulum-sym", "planar double pendulum, unequal masses (chs-gen example)")
x1, y1, x2, y2 = P.coordinates("x1 y1 x2 y2")
m1 = P.parameter("m1", 1, "first mass", positive=True)
m2 = P.parameter("m2", 2, "second mass", positive=True)
L1 = P.parameter("L1", 1, "first rod", positive=True)
L2 = P.parameter("L2", 1.5, "second rod", positive=True)
gravity = P.parameter("gravity", 1, "gravitational acceleration", nonnegative=True)
th1 = P.parameter("theta1", sp.pi / 2, "initial angle of the first rod")
th2 = P.parameter("theta2", 3 * sp.pi / 4, "initial angle of the second rod")
w1 = P.parameter("omega1", 0, "initial angular velocity of the first rod")
w2 = P.parameter("omega2", -1, "initial angular velocity of the second rod")
P.mass_matrix(sp.diag(m1, m1, m2, m2))
P.potential(gravity * (m1 * y1 + m2 * y2))
P.constraints([(x1**2 + y1**2 - L1**2) / 2, ((x2 - x1)**2 + (y2 - y1)**2 - L2**2) / 2],
              names=["rod1", "rod2"])
a1, b1 = L1 * sp.sin(th1), -L1 * sp.cos(th1)
va1, vb1 = L1 * sp.cos(th1) * w1, L1 * sp.sin(th1) * w1
P.initial_state(q0=[a1, b1, a1 + L2 * sp.sin(th2), b1 - L2 * sp.cos(th2)],
                v0=[va1, vb1, va1 + L2 * sp.cos(th2) * w2, vb1 + L2 * sp.sin(th2) * w2])
