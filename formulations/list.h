/* The one list of built-in formulations: CHS_FORMULATION(symbol) per line. A new formulation is
 * one file defining `const CHSFormulationOps symbol` plus one line here. */
CHS_FORMULATION(chs_formulation_standard)
CHS_FORMULATION(chs_formulation_dirac)
CHS_FORMULATION(chs_formulation_extended)
CHS_FORMULATION(chs_formulation_total)
CHS_FORMULATION(chs_formulation_baumgarte)
CHS_FORMULATION(chs_formulation_impetus)
CHS_FORMULATION(chs_formulation_fj)
CHS_FORMULATION(chs_formulation_ssf)
CHS_FORMULATION(chs_formulation_dae_index3)
CHS_FORMULATION(chs_formulation_dae_ggl)
CHS_FORMULATION(chs_formulation_dae_index1)
