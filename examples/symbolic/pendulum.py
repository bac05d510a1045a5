"""The planar pendulum in Cartesian coordinates, as chs' built-in `pendulum` (default parameters,
hamiltonian=natural): H = |p|^2/(2 mass) + mass gravity y, g = gscale (x^2 + y^2 - length^2).

    chs-gen examples/symbolic/pendulum.py -o build-gen --build
    chs run --problem ./build-gen/libpendulum_sym.so --formulation dirac --method erk:dp5
"""
from chs_gen import Problem

P = Problem("pendulum-sym", "planar pendulum in Cartesian coordinates (chs-gen example)")
x, y = P.coordinates("x y")
length = P.parameter("length", 1, "rod length", positive=True)
gravity = P.parameter("gravity", 1, "gravitational acceleration", nonnegative=True)
mass = P.parameter("mass", 1, "point mass", positive=True)
gscale = P.parameter("gscale", 0.5, "scale of the constraint", positive=True)
vx, vy = P.velocities
P.kinetic_energy(mass * (vx**2 + vy**2) / 2)
P.potential(mass * gravity * y)
P.constraints([gscale * (x**2 + y**2 - length**2)])
P.initial_state(q0=[length, 0], p0=[0, -2])
# the pendulum passes the vertical below the pivot where x changes sign
P.events({"vertical": x})
