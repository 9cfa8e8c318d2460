# Sensitivity of team-draft interleaving against an A/B test on click-through, by simulation
# over the demo corpus (20,000 recipes): `braid experiment simulate` with its defaults (the
# model and every parameter are in the README, "How sensitive"). Prints the sessions
# each method needs for 80 % power at α = 0.05 (users of 5 sessions who differ in how much they
# click; A/B randomized and tested by user) and their ratio, and the false-positive rates of the
# sign test and of the A/B test over 1,000 experiments each with no preference. Needs no server. The seed is
# BRAID_BENCH_EVALUATION_SEED (default 1); other flags can be passed in
# BRAID_BENCH_EVALUATION_ARGS. Sourced by bench.sh.
seed="${BRAID_BENCH_EVALUATION_SEED:-1}"
read -r -a extra <<<"${BRAID_BENCH_EVALUATION_ARGS:-}"
corpus="$BRAID_RUN_DIR/evaluation-corpus.sqlite"
"$BRAID" seed --docs 20000 --users 200 --db "$corpus" >/dev/null 2>&1 || braid_die "braid seed failed"
out="$("$BRAID" experiment simulate --db "$corpus" --seed "$seed" "${extra[@]}")" || braid_die "braid experiment simulate failed"
echo "$out"
grep -q '^RATIO evaluation.ab_sessions.over_interleaving ' <<<"$out" || braid_die "the simulation printed no sessions ratio"
grep -q '^RATIO evaluation.null_false_positive_rate ' <<<"$out" || braid_die "the simulation printed no false-positive rate"
