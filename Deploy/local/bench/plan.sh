# Interleaving plans: cost at offset 0 vs offset 10^9 (the planner is closed-form).
"$BRAID" bench plan
