# gpu-steps.sh: sourced by the GPU machine's scripts (gpu-comm.sh, gpu-models.sh): the steps the caller asked for,
# and a step runner that logs each command into $LOG and notes pass/fail and its time in $SUMMARY's table.
# Before sourcing: set steps=(...) to the requested steps (or empty for the script's defaults, given as arguments).

# wick_steps_init DEFAULT...: the requested steps, or these defaults.
wick_steps_init() {
    [ ${#steps[@]} -eq 0 ] && steps=("$@")
    failed=0
}

# wanted STEP: whether STEP was asked for.
wanted() { local s; for s in "${steps[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

# step NAME TIMEOUT COMMAND...: runs COMMAND into the log, notes pass/fail in the summary.
step() {
    local name=$1 lim=$2 t0 rc
    shift 2
    t0=$(date +%s)
    echo "== $(date +%T) $name: $*" >>"$LOG"
    timeout -k 10 "$lim" "$@" >>"$LOG" 2>&1
    rc=$?
    echo "| $name | $([ $rc -eq 0 ] && echo pass || echo "FAIL (rc $rc)") | $(($(date +%s) - t0)) s |" >>"$SUMMARY"
    [ $rc -eq 0 ] || failed=1
    return $rc
}
