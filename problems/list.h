/* The one list of built-in problems: CHS_PROBLEM(symbol) per line. A new problem is one file
 * defining `const CHSProblemOps symbol` plus one line here. */
CHS_PROBLEM(chs_problem_pendulum)
CHS_PROBLEM(chs_problem_double_pendulum)
CHS_PROBLEM(chs_problem_pendulum_chain)
CHS_PROBLEM(chs_problem_chain)
CHS_PROBLEM(chs_problem_slider_crank)
CHS_PROBLEM(chs_problem_andrews)
CHS_PROBLEM(chs_problem_car_axis)
CHS_PROBLEM(chs_problem_heavy_top)
