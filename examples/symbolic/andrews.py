"""Andrews' squeezing mechanism (IVP test set, problem "andrews"; Hairer & Wanner, "Solving ODEs
II", VII.7), as chs' built-in `andrews` (problems/andrews.c): seven angles
q = (beta, theta, gamma, phi, delta, omega, epsilon), a configuration-dependent mass matrix M(q)
(CHS_MASS_CONFIG: mass_matrix, mass_dir and mass_grad are generated), six trigonometric loop
constraints (constraint_third is generated) and

    V = -mom beta + 1/2 c0 (L(gamma) - l0)^2,   L = |D(gamma) - C|,

the drive torque mom on beta and the spring between the point D(gamma) of body 3 and the fixed
point C. The problem data and the consistent initial state (q0, v0 = 0) are the test set's; the
drive torque and the spring stiffness are parameters (defaults: the test set's), every other
number is a constant.

    chs-gen examples/symbolic/andrews.py -o build-andrews --build
    chs run --problem ./build-andrews/libandrews_sym.so --formulation dirac --method erk:dp5 \
      --rtol 1e-10 --atol 1e-10 --tf 0.03
"""
from chs_gen import Problem, sp

P = Problem("andrews-sym", "Andrews' squeezing mechanism, M(q) (chs-gen example)")
b, th, ga, ph, de, om, ep = P.coordinates("beta theta gamma phi delta omega epsilon")
mom = P.parameter("mom", 0.033, "drive torque on beta")
c0 = P.parameter("c0", 4530, "spring stiffness", nonnegative=True)


def num(s):
    """A constant of the test set, exactly as written there (a rational number)."""
    return sp.Rational(s)


# the test set's data (lengths in m, masses in kg, inertias in kg m^2)
m1, m2, m3, m4, m5, m6, m7 = map(num, "0.04325 0.00365 0.02373 0.00706 0.07050 0.00706 "
                                      "0.05498".split())
i1, i2, i3, i4, i5, i6, i7 = map(num, "2.194e-6 4.410e-7 5.255e-6 5.667e-7 1.169e-5 5.667e-7 "
                                      "1.912e-5".split())
xa, ya, xb, yb, xc, yc = map(num, "-0.06934 -0.00227 -0.03635 0.03273 0.014 0.072".split())
d, da, e, ea, rr, ra, l0 = map(num, "28e-3 115e-4 2e-2 1421e-5 7e-3 92e-5 7785e-5".split())
ss, sa, sb, sc, sd = map(num, "35e-3 1874e-5 1043e-5 18e-3 2e-2".split())
ta, tb, u, ua, ub, zf, zt, fa = map(num, "2308e-5 916e-5 4e-2 1228e-5 449e-5 2e-2 4e-2 "
                                         "1421e-5".split())

cos, sin = sp.cos, sp.sin
e1, f1 = e - ea, zf - fa
M = sp.zeros(7, 7)
M[0, 0] = m1 * ra**2 + m2 * (rr**2 - 2 * da * rr * cos(th) + da**2) + i1 + i2
M[0, 1] = M[1, 0] = m2 * (da**2 - da * rr * cos(th)) + i2
M[1, 1] = m2 * da**2 + i2
M[2, 2] = m3 * (sa**2 + sb**2) + i3
M[3, 3] = m4 * e1**2 + i4
M[3, 4] = M[4, 3] = m4 * (e1**2 + zt * e1 * sin(ph)) + i4
M[4, 4] = m4 * (zt**2 + 2 * zt * e1 * sin(ph) + e1**2) + m5 * (ta**2 + tb**2) + i4 + i5
M[5, 5] = m6 * f1**2 + i6
M[5, 6] = M[6, 5] = m6 * (f1**2 - u * f1 * sin(om)) + i6
M[6, 6] = m6 * (f1**2 - 2 * u * f1 * sin(om) + u**2) + m7 * (ua**2 + ub**2) + i6 + i7
P.mass_matrix(M)

# the spring from D(gamma) on body 3 to the fixed point C
xd = sd * cos(ga) + sc * sin(ga) + xb
yd = sd * sin(ga) - sc * cos(ga) + yb
L = sp.sqrt((xd - xc)**2 + (yd - yc)**2)
P.potential(-mom * b + c0 / 2 * (L - l0)**2)

# the three closed loops (the crank tip B on bodies 2..7)
bx = rr * cos(b) - d * cos(b + th)
by = rr * sin(b) - d * sin(b + th)
P.constraints([bx - ss * sin(ga) - xb,
               by + ss * cos(ga) - yb,
               bx - e * sin(ph + de) - zt * cos(de) - xa,
               by + e * cos(ph + de) - zt * sin(de) - ya,
               bx - zf * cos(om + ep) - u * sin(ep) - xa,
               by - zf * sin(om + ep) + u * cos(ep) - ya])

q0 = [-0.0617138900142764496358948458001, 0, 0.455279819163070380255912382449,
      0.222668390165885884674473185609, 0.487364979543842550225598953530,
      -0.222668390165885884674473185609, 1.23054744454982119249735015568]
P.initial_state(q0=q0, v0=[0] * 7)
