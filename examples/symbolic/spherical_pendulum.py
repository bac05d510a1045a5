"""The spherical pendulum in 3-D, as the hand-written example plugin
problems/examples/spherical_pendulum.c (same parameters, callbacks and reference):
H = |p|^2/(2 mass) + mass gravity z, g = 1/2 (|q|^2 - length^2), on the conical orbit at height
-depth, an exact solution q(t) = (r cos(Omega t), r sin(Omega t), -depth), r^2 = length^2 - depth^2,
Omega^2 = gravity/depth. Also declares the vertical angular momentum x p_y - y p_x as an invariant.
"""
from chs_gen import Problem, sp

P = Problem("spherical-pendulum-sym", "spherical pendulum in 3-D on a conical orbit (chs-gen)")
x, y, z = P.coordinates("x y z")
length = P.parameter("length", 1, "rod length", positive=True)
gravity = P.parameter("gravity", 1, "gravitational acceleration", positive=True)
mass = P.parameter("mass", 1, "point mass", positive=True)
depth = P.parameter("depth", 0.5, "depth of the conical orbit below the pivot", positive=True)
P.require(depth < length, "depth must be < length")
P.mass_matrix(sp.eye(3) * mass)
P.potential(mass * gravity * z)
P.constraints([(x**2 + y**2 + z**2 - length**2) / 2])
t = P.time
r, Omega = sp.sqrt(length**2 - depth**2), sp.sqrt(gravity / depth)
orbit = [r * sp.cos(Omega * t), r * sp.sin(Omega * t), -depth]
P.reference(orbit)
P.initial_state(q0=[e.subs(t, 0) for e in orbit], v0=[sp.diff(e, t).subs(t, 0) for e in orbit])
px, py, pz = P.momenta
P.invariants({"angular momentum z": x * py - y * px})
