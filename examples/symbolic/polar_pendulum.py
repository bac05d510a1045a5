"""The planar pendulum in polar coordinates (r, theta), theta from the downward vertical: a
configuration-dependent mass matrix M(q) = diag(mass, mass r^2) (CHS_MASS_CONFIG),
V = -mass gravity r cos(theta), g = 1/2 (r^2 - length^2).

The initial guess r0 (default 1.2) is off the constraint on purpose: the plugin's Newton iteration
brings it to r = length, and the velocity projection removes the radial velocity vr0, so the
initial state is q = (length, theta0), p = (0, mass length^2 omega0).
"""
from chs_gen import Problem, sp

P = Problem("polar-pendulum", "planar pendulum in polar coordinates, M(q) (chs-gen example)")
r, th = P.coordinates("r theta")
length = P.parameter("length", 1, "rod length", positive=True)
gravity = P.parameter("gravity", 1, "gravitational acceleration", nonnegative=True)
mass = P.parameter("mass", 1, "point mass", positive=True)
r0 = P.parameter("r0", 1.2, "initial guess for r (made consistent)", positive=True)
theta0 = P.parameter("theta0", 0.5, "initial angle")
vr0 = P.parameter("vr0", 0.3, "initial radial velocity (projected away)")
omega0 = P.parameter("omega0", 1, "initial angular velocity")
vr, vth = P.velocities
P.kinetic_energy(mass * (vr**2 + r**2 * vth**2) / 2)
P.potential(-mass * gravity * r * sp.cos(th))
P.constraints([(r**2 - length**2) / 2])
P.initial_state(q0=[r0, theta0], v0=[vr0, omega0])
