"""A damped pendulum whose pivot moves horizontally, x_s(t) = amplitude sin(Omega t), under a
vertically modulated gravity: explicit time dependence in the constraint and the potential, and a
non-conservative (viscous) force:

    g = 1/2 ((x - x_s(t))^2 + y^2 - length^2),  V = mass gravity (1 + eps cos(Omega t)) y,
    F_nc = -damping v.

The plugin gets set_time, constraint_dt (g_t, G_t, g_tt), potential_dt and
dims.time_dependent = CHS_TIME_CONSTRAINTS | CHS_TIME_POTENTIAL. Its initial state hangs at angle
theta0 with zero velocity relative to the pivot: the projection onto G v + g_t = 0 supplies the
pivot's motion.
"""
from chs_gen import Problem, sp

P = Problem("moving-support", "damped pendulum on a moving pivot (chs-gen example, time-dependent)")
x, y = P.coordinates("x y")
t = P.time
length = P.parameter("length", 1, "rod length", positive=True)
gravity = P.parameter("gravity", 1, "gravitational acceleration", nonnegative=True)
mass = P.parameter("mass", 1, "point mass", positive=True)
amp = P.parameter("amplitude", 0.2, "amplitude of the pivot's motion", nonnegative=True)
Om = P.parameter("Omega", 3, "angular frequency of the pivot and of the modulation")
eps = P.parameter("eps", 0.1, "relative modulation of gravity")
c = P.parameter("damping", 0.05, "viscous damping coefficient", nonnegative=True)
theta0 = P.parameter("theta0", 0.4, "initial angle from the downward vertical")
vx, vy = P.velocities
P.kinetic_energy(mass * (vx**2 + vy**2) / 2)
P.potential(mass * gravity * (1 + eps * sp.cos(Om * t)) * y)
P.constraints([((x - amp * sp.sin(Om * t))**2 + y**2 - length**2) / 2])
P.nonconservative_force([-c * vx, -c * vy])
P.initial_state(q0=[length * sp.sin(theta0), -length * sp.cos(theta0)], v0=[0, 0])
