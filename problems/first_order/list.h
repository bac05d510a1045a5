/* The one list of built-in first-order problems (chs/first_order.h): CHS_FIRST_ORDER(symbol) per
 * line. A new one is one file defining `const CHSFirstOrderOps symbol` plus one line here. */
CHS_FIRST_ORDER(chs_first_order_fj_example)
