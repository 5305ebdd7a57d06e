# Sourced by ./run-tests: install the distribution packages the tests use (a real MQTT broker,
# a headless browser, ...) when they are missing. The list is .ci/apt-packages.txt, one
# "COMMAND PACKAGE..." per line: the packages are installed when COMMAND is not on PATH.
# Needs apt-get and root (or password-less sudo); elsewhere it says what is missing and the
# tests that need it are skipped outside CI (in CI, with CI=true, they fail instead).
ensure_system_packages() {
    local list=".ci/apt-packages.txt" missing=() cmd pkgs sudo=""
    [ -f "$list" ] || return 0
    while read -r cmd pkgs; do
        case "$cmd" in ""|\#*) continue ;; esac
        command -v "$cmd" >/dev/null 2>&1 || [ -x "/usr/sbin/$cmd" ] || missing+=($pkgs)
    done <"$list"
    [ ${#missing[@]} -gt 0 ] || return 0
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
    echo "dicetower: installing system packages for the tests: ${missing[*]}" >&2
    if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; } \
        >/tmp/dicetower-apt.log 2>&1; then
        cat /tmp/dicetower-apt.log >&2
        echo "dicetower: installing ${missing[*]} failed (log above)" >&2
        return 1
    fi
}
