"""The spherical pendulum of spherical_pendulum.py, with its kinetic energy taken from a
sympy.physics.mechanics model (a particle in an inertial frame; the coordinates are
dynamicsymbols, their time derivatives read as velocities). Same callbacks as the hand-written
problems/examples/spherical_pendulum.c.
"""
import sympy.physics.mechanics as me

from chs_gen import Problem, sp

P = Problem("spherical-pendulum-mech", "spherical pendulum from sympy.physics.mechanics")
xs, ys, zs = me.dynamicsymbols("x y z")
x, y, z = P.coordinates([xs, ys, zs])
length = P.parameter("length", 1, "rod length", positive=True)
gravity = P.parameter("gravity", 1, "gravitational acceleration", positive=True)
mass = P.parameter("mass", 1, "point mass", positive=True)
depth = P.parameter("depth", 0.5, "depth of the conical orbit below the pivot", positive=True)
P.require(depth < length, "depth must be < length")

N = me.ReferenceFrame("N")
O = me.Point("O")
O.set_vel(N, 0)
B = O.locatenew("B", xs * N.x + ys * N.y + zs * N.z)
B.set_vel(N, B.pos_from(O).dt(N))
bob = me.Particle("bob", B, mass)
bob.potential_energy = mass * gravity * zs
P.kinetic_energy(me.kinetic_energy(N, bob))
P.potential(me.potential_energy(bob))
P.constraints([(xs**2 + ys**2 + zs**2 - length**2) / 2])

t = P.time
r, Omega = sp.sqrt(length**2 - depth**2), sp.sqrt(gravity / depth)
orbit = [r * sp.cos(Omega * t), r * sp.sin(Omega * t), -depth]
P.reference(orbit)
P.initial_state(q0=[e.subs(t, 0) for e in orbit], v0=[sp.diff(e, t).subs(t, 0) for e in orbit])
