# Shared by ./tower and ./run-tests: create .venv with Python >= 3.11 and install the
# project (editable) with the given extra, reinstalling only when pyproject.toml changed.
ensure_venv() {
    local extra="$1" py="" stamp
    for cand in "${PYTHON:-}" python3 python3.13 python3.12 python3.11; do
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
    if [ ! -x .venv/bin/python ]; then
        "$py" -m venv .venv
    fi
    stamp=".venv/.installed$extra"
    if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
        .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null
        .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".$extra"
        touch "$stamp"
    fi
}
