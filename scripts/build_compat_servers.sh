#!/usr/bin/env bash
# Build the two real OpenAI-compatible servers that tests/llm/test_compat_servers.py (`pytest -m compat`) runs
# rt4chart against, CPU only:
#   1. llama-cpp-python's server (`python -m llama_cpp.server`), built from the PyPI sdist into a venv of its own;
#   2. llama.cpp's `llama-server` (C++), built with cmake from the llama.cpp source that ships inside that same sdist
#      (vendor/llama.cpp), so both servers run the same llama.cpp.
# It also installs `gguf` (the test writes its tiny model with it) into the python3 that runs pytest.
#
# Everything goes under $RT4CHART_COMPAT_DIR (default: <repo>/.cache/compat, which .gitignore ignores):
#   venv/      the venv holding llama-cpp-python[server] (and gguf)
#   src/       the unpacked sdist
#   build/     the cmake build of llama-server
# Re-running reuses what is there (a second run takes seconds). Each build compiles llama.cpp, ggml and mtmd: about
# 31 minutes (pip) and 20 (llama-server) on 2 cores at idle priority beside a benchmark using most of them
# (2026-12-02); less on an idle machine. Set NICE="chrt --idle 0" (or "nice -n 19") to build at low priority.
# LLAMA_BUILD_WEBUI is deprecated in this llama.cpp (LLAMA_BUILD_UI) but still honoured: kept as tested.
#
# At the end it prints the two variables the compat tests read:
#   RT4CHART_LLAMA_SERVER=<path to llama-server>
#   RT4CHART_LLAMA_CPP_PYTHON=<python that can `import llama_cpp.server`>
set -euo pipefail

LLAMA_CPP_PYTHON_VERSION="${LLAMA_CPP_PYTHON_VERSION:-0.3.36}"
GGUF_VERSION="${GGUF_VERSION:-0.19.0}"
PYTHON="${PYTHON:-python3}"
JOBS="${JOBS:-2}"
NICE="${NICE:-}"

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${RT4CHART_COMPAT_DIR:-$repo/.cache/compat}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
venv="$dir/venv"
src="$dir/src"
build="$dir/build"

echo "== gguf $GGUF_VERSION into $("$PYTHON" -c 'import sys; print(sys.executable)') (the test writes its model with it)"
$NICE "$PYTHON" -m pip install --quiet "gguf==$GGUF_VERSION"

echo "== llama-cpp-python[server] $LLAMA_CPP_PYTHON_VERSION into $venv (built from source, CPU only)"
if [ ! -x "$venv/bin/python" ]; then
    "$PYTHON" -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import llama_cpp, llama_cpp.server, sys; \
sys.exit(llama_cpp.__version__ != '$LLAMA_CPP_PYTHON_VERSION')" 2>/dev/null; then
    CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_BLAS=OFF -DGGML_CUDA=OFF -DLLAMA_CURL=OFF}" \
        $NICE "$venv/bin/python" -m pip install --no-binary llama-cpp-python --verbose \
        "llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION" "gguf==$GGUF_VERSION" > "$dir/pip-build.log" 2>&1 \
        || { tail -50 "$dir/pip-build.log"; echo "pip build failed; log: $dir/pip-build.log" >&2; exit 1; }
fi
"$venv/bin/python" -c "import llama_cpp, llama_cpp.server; print('llama_cpp', llama_cpp.__version__)"

echo "== llama-server from the llama.cpp vendored in llama-cpp-python $LLAMA_CPP_PYTHON_VERSION's sdist"
sdist_dir="$src/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION"
if [ ! -f "$sdist_dir/vendor/llama.cpp/CMakeLists.txt" ]; then
    mkdir -p "$src"
    "$PYTHON" -m pip download --quiet --no-binary :all: --no-deps -d "$src" \
        "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION"
    tar -xzf "$src/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz" -C "$src"
fi
llama_src="$sdist_dir/vendor/llama.cpp"
$NICE cmake -S "$llama_src" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_WEBUI=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TOOLS=ON \
    -DGGML_NATIVE=OFF -DGGML_BLAS=OFF -DGGML_CUDA=OFF -DBUILD_SHARED_LIBS=OFF > "$dir/cmake-configure.log" 2>&1 \
    || { tail -50 "$dir/cmake-configure.log"; echo "cmake configure failed; log: $dir/cmake-configure.log" >&2; exit 1; }
$NICE cmake --build "$build" --target llama-server -j "$JOBS" > "$dir/cmake-build.log" 2>&1 \
    || { tail -50 "$dir/cmake-build.log"; echo "cmake build failed; log: $dir/cmake-build.log" >&2; exit 1; }
server="$build/bin/llama-server"
"$server" --version 2>&1 | head -2

echo
echo "Built. To run the compat tests:"
echo "export RT4CHART_LLAMA_SERVER=$server"
echo "export RT4CHART_LLAMA_CPP_PYTHON=$venv/bin/python"
echo "python3 -m pytest -m compat tests/llm/test_compat_servers.py -v"
