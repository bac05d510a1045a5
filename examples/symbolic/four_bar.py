"""A planar four-bar linkage (crank-rocker) in absolute coordinates: each moving link i (crank,
coupler, rocker) is a uniform rod with centre (x_i, y_i) and angle phi_i, so the mass matrix is
constant, diag(m_i, m_i, m_i L_i^2/12), and the eight revolute-joint constraints contain
cos(phi_i), sin(phi_i) (not quadratic: constraint_third is generated). The crank turns about the
origin O, the rocker about D = (ground, 0). A torsional spring at D (stiffness k, rest angle
rest) makes V non-linear (hessian_potential is generated).

The initial state: the crank at angle `crank` with angular velocity `omega`; the coupler and rocker
from the closed-form intersection of two circles (the upper assembly), all other velocities zero,
made consistent by the plugin's velocity projection (docs/symbolic.md).
"""
from chs_gen import Problem, sp

P = Problem("four-bar", "four-bar linkage in absolute coordinates (chs-gen example)")
q = P.coordinates("x1 y1 phi1 x2 y2 phi2 x3 y3 phi3")
x1, y1, f1, x2, y2, f2, x3, y3, f3 = q
L1 = P.parameter("L1", 0.5, "crank length", positive=True)
L2 = P.parameter("L2", 2, "coupler length", positive=True)
L3 = P.parameter("L3", 1.5, "rocker length", positive=True)
d = P.parameter("ground", 2, "distance between the fixed pivots", positive=True)
m1 = P.parameter("m1", 1, "crank mass", positive=True)
m2 = P.parameter("m2", 1, "coupler mass", positive=True)
m3 = P.parameter("m3", 1, "rocker mass", positive=True)
gravity = P.parameter("gravity", 1, "gravitational acceleration", nonnegative=True)
k = P.parameter("k", 0.5, "torsional spring at the rocker's pivot", nonnegative=True)
rest = P.parameter("rest", 1.5, "rest angle of the spring")
crank = P.parameter("crank", sp.pi / 3, "initial crank angle")
omega = P.parameter("omega", 1, "initial crank angular velocity")

P.mass_matrix(sp.diag(m1, m1, m1 * L1**2 / 12, m2, m2, m2 * L2**2 / 12, m3, m3,
                      m3 * L3**2 / 12))
P.potential(gravity * (m1 * y1 + m2 * y2 + m3 * y3) + k * (f3 - rest)**2 / 2)


def e(phi):
    return sp.Matrix([sp.cos(phi), sp.sin(phi)])


c1, c2, c3 = sp.Matrix([x1, y1]), sp.Matrix([x2, y2]), sp.Matrix([x3, y3])
D = sp.Matrix([d, 0])
joints = [c1 - L1 / 2 * e(f1),                              # O: crank on the ground
          c1 + L1 / 2 * e(f1) - (c2 - L2 / 2 * e(f2)),      # A: crank - coupler
          c2 + L2 / 2 * e(f2) - (c3 + L3 / 2 * e(f3)),      # B: coupler - rocker
          c3 - L3 / 2 * e(f3) - D]                          # D: rocker on the ground
P.constraints([row for j in joints for row in j])

# initial configuration: A on the crank circle, B where the circles about A and D meet
A = L1 * e(crank)
dv = D - A
dist = sp.sqrt(dv.dot(dv))
a = (L2**2 - L3**2 + dist**2) / (2 * dist)
h = sp.sqrt(L2**2 - a**2)
B = A + a / dist * dv + h / dist * sp.Matrix([-dv[1], dv[0]])
phi2 = sp.atan2(B[1] - A[1], B[0] - A[0])
phi3 = sp.atan2(B[1] - D[1], B[0] - D[0])
C1, C2, C3 = A / 2, (A + B) / 2, (B + D) / 2
P.initial_state(q0=[C1[0], C1[1], crank, C2[0], C2[1], phi2, C3[0], C3[1], phi3],
                v0=[-L1 / 2 * omega * sp.sin(crank), L1 / 2 * omega * sp.cos(crank), omega,
                    0, 0, 0, 0, 0, 0])
