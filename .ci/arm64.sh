# shellcheck shell=bash
# Sourced by ./run-tests: start .ci/arm64-root.sh (the hobbyist's first boot in a Debian arm64
# root under qemu; docs/deploy.md, "What CI proves") in the background, one run per suite in
# $DICETOWER_ARM64_SUITES, so that its minutes under emulation overlap the rest of the suite.
# The default is bookworm (Raspberry Pi OS 12's base); trixie (13's) is there to be asked for
# (DICETOWER_ARM64_SUITES=bookworm,trixie): its first boot under emulation (Python 3.13's venv
# and pip) takes ~15 minutes on a busy 2-core machine, more than CI's 20 minutes leave
# (docs/deploy.md, "How long CI takes"). The engine's tests (the longest part under
# emulation) run in the first suite's root only.
# tests/deploy/test_arm64_root.py waits for the reports named in $DICETOWER_ARM64_REPORTS.
# DICETOWER_ARM64=0 starts nothing (and ./run-tests leaves the tests out).
# stop_arm64_roots ends the runs still going (each in a process group of its own, which it
# started: the script's trap unmounts its root).
ARM64_GROUPS=()
start_arm64_roots() {
    [ "${DICETOWER_ARM64:-1}" != 0 ] || return 0
    local suite dir reports=() suites skip=()
    export DICETOWER_ARM64_SUITES="${DICETOWER_ARM64_SUITES:-bookworm}"
    dir="$(mktemp -d /tmp/dicetower-arm64.XXXXXX)"
    IFS=, read -ra suites <<<"$DICETOWER_ARM64_SUITES"
    for suite in "${suites[@]}"; do
        # nice: the main suite's tests with a real broker or browser should not wait on it
        setsid nice -n 5 bash .ci/arm64-root.sh --suite "$suite" --report "$dir/$suite.report" "${skip[@]}" \
            </dev/null >"$dir/$suite.log" 2>&1 &
        skip=(--skip-engine)
        ARM64_GROUPS+=("$!")
        reports+=("$suite=$dir/$suite.report")
    done
    DICETOWER_ARM64_REPORTS="$(IFS=,; echo "${reports[*]}")"
    export DICETOWER_ARM64_REPORTS
    echo "dicetower: the arm64 root checks ($DICETOWER_ARM64_SUITES) run in the background (logs in $dir)" >&2
}

stop_arm64_roots() {
    local group
    for group in "${ARM64_GROUPS[@]}"; do
        kill -TERM -- "-$group" 2>/dev/null || true
    done
}
