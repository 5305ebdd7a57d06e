# shellcheck shell=bash
# Sourced by ./run-tests: start .ci/arm64-root.sh (the hobbyist's first boot in a Debian arm64
# root under qemu; docs/deploy.md, "What CI proves") in the background, one run per suite in
# $DICETOWER_ARM64_SUITES (default: bookworm and trixie, the bases of Raspberry Pi OS 12 and
# 13), so that its minutes under emulation overlap the rest of the suite. The engine's tests
# (the longest part under emulation) run in the first suite's root only: the same code on the
# same architecture, and the whole suite runs natively under both Pythons anyway.
# tests/deploy/test_arm64_root.py waits for the reports named in $DICETOWER_ARM64_REPORTS.
# DICETOWER_ARM64=0 starts nothing (and ./run-tests leaves the tests out).
# stop_arm64_roots ends the runs still going (each in a process group of its own, which it
# started: the script's trap unmounts its root).
ARM64_GROUPS=()
start_arm64_roots() {
    [ "${DICETOWER_ARM64:-1}" != 0 ] || return 0
    local suite dir reports=() suites skip=()
    export DICETOWER_ARM64_SUITES="${DICETOWER_ARM64_SUITES:-bookworm,trixie}"
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
