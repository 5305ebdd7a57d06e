# Shared by ./tower and ./run-tests: create a venv (.venv, or DIR) with Python >= 3.11 (or the
# PYTHON given) and install the project (editable) with the given extra, reinstalling only when
# pyproject.toml changed.
#   ensure_venv EXTRA [DIR PYTHON]
ensure_venv() {
    local extra="$1" venv="${2:-.venv}" py="${3:-}" stamp
    for cand in "$py" "${PYTHON:-}" python3 python3.13 python3.12 python3.11; do
        [ -n "$cand" ] || continue
        if command -v "$cand" >/dev/null 2>&1 &&
            "$cand" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            py="$cand"
            break
        fi
    done
    if [ -z "$py" ]; then
        echo "dicetower needs Python 3.11 or newer (python3 --version says: $(python3 --version 2>&1))" >&2
        exit 2
    fi
    local venv_opts=() on_pi=""
    if grep -qs "Raspberry Pi" /proc/device-tree/model; then
        # Raspberry Pi OS ships lgpio / RPi.GPIO as system packages (python3-lgpio,
        # python3-rpi.gpio); the venv sees them instead of building them from source.
        on_pi=1
        venv_opts=(--system-site-packages)
    fi
    if [ ! -x "$venv/bin/python" ]; then
        if ! "$py" -m venv "${venv_opts[@]}" "$venv"; then
            rm -rf "$venv"
            echo "dicetower: could not create $venv; on Debian or Raspberry Pi OS: sudo apt install python3-venv" >&2
            exit 2
        fi
    fi
    if [ -n "$on_pi" ] && [ -z "$extra" ] &&
        ! "$venv/bin/python" -c "import lgpio" 2>/dev/null && ! "$venv/bin/python" -c "import RPi.GPIO" 2>/dev/null; then
        extra="[pi]"
    fi
    stamp="$venv/.installed$extra"
    if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
        echo "dicetower: installing into $venv (first run, or pyproject.toml changed)..." >&2
        # pip's and setuptools' chatter goes to a log; it is shown only if the install fails.
        if ! { "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip &&
            "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e ".$extra"; } \
            >"$venv/install.log" 2>&1; then
            cat "$venv/install.log" >&2
            echo "dicetower: installing into $venv failed (log above, also in $venv/install.log)" >&2
            exit 1
        fi
        touch "$stamp"
    fi
}

# A Python 3.13 on this machine (Raspberry Pi OS trixie's Python), for ./run-tests' second run:
# $PYTHON313, python3.13 on PATH, pyenv's, or the system's. Prints its path, or nothing.
find_python313() {
    local cand
    for cand in "${PYTHON313:-}" python3.13 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.13*/bin/python3.13 \
        /usr/bin/python3.13 /usr/local/bin/python3.13; do
        [ -n "$cand" ] || continue
        if command -v "$cand" >/dev/null 2>&1 &&
            "$cand" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 13))' 2>/dev/null; then
            command -v "$cand"
            return 0
        fi
    done
}
