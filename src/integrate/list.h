/* The one list of integrator families: CHS_INTEGRATOR(symbol) per line. A new family is one file
 * in src/integrate/ defining `const CHSIntegratorOps symbol` plus one line here. */
CHS_INTEGRATOR(chs_integrator_erk)
CHS_INTEGRATOR(chs_integrator_dirk)
CHS_INTEGRATOR(chs_integrator_gauss)
CHS_INTEGRATOR(chs_integrator_cvode)
CHS_INTEGRATOR(chs_integrator_ida)
CHS_INTEGRATOR(chs_integrator_rattle)
CHS_INTEGRATOR(chs_integrator_sprk)
CHS_INTEGRATOR(chs_integrator_midpoint)
CHS_INTEGRATOR(chs_integrator_lobatto)
CHS_INTEGRATOR(chs_integrator_alpha_prk)
