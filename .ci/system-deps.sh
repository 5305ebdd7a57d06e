# shellcheck shell=bash
# Sourced by ./run-tests: install the distribution packages the tests use (a real MQTT broker,
# a headless browser, ...) when they are missing. The list is .ci/apt-packages.txt
# ($DICETOWER_APT_LIST), one "COMMAND PACKAGE... # why" per line: the packages are installed
# when COMMAND is not on PATH. Needs apt-get and root (or password-less sudo); before
# installing it says which packages and why. DICETOWER_NO_APT=1 installs nothing. Where
# nothing is installed it says what is missing, and the tests that need it are skipped outside
# CI (in CI, with CI=true, they fail instead).
ensure_system_packages() {
    local list="${DICETOWER_APT_LIST:-.ci/apt-packages.txt}" missing=() reasons=() line cmd pkgs why sudo=""
    [ -f "$list" ] || return 0
    while IFS= read -r line; do
        why=""
        if [[ "$line" == *"#"* ]]; then
            why="${line#*#}"
            why="${why#"${why%%[![:space:]]*}"}"  # without the spaces after the #
            line="${line%%#*}"
        fi
        read -r cmd pkgs <<<"$line"
        [ -n "$cmd" ] || continue
        if ! command -v "$cmd" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$cmd" ]; then
            # shellcheck disable=SC2206  # the packages are words
            missing+=($pkgs)
            reasons+=("$pkgs${why:+: $why}")
        fi
    done <"$list"
    [ ${#missing[@]} -gt 0 ] || return 0
    if [ -n "${DICETOWER_NO_APT:-}" ]; then
        echo "dicetower: DICETOWER_NO_APT is set: not installing ${missing[*]} (the tests that need them are skipped)" >&2
        return 0
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "dicetower: tests want these packages, not installed (no apt-get here): ${missing[*]}" >&2
        return 0
    fi
    if [ "$(id -u)" != 0 ]; then
        if sudo -n true 2>/dev/null; then sudo="sudo -n"; else
            echo "dicetower: tests want these packages (run as root, or: sudo apt-get install ${missing[*]})" >&2
            return 0
        fi
    fi
    {
        echo "dicetower: ./run-tests is installing Debian packages with apt-get${sudo:+ (through sudo)}, for these tests:"
        printf '  %s\n' "${reasons[@]}"
        echo "  (DICETOWER_NO_APT=1 ./run-tests installs nothing; the tests that need them are then skipped)"
    } >&2
    local log
    log="$(mktemp)"
    if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; } \
        >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        echo "dicetower: installing ${missing[*]} failed (log above)" >&2
        return 1
    fi
    rm -f "$log"
}
