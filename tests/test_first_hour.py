"""A newcomer's first hour, without a surprise: the README's commands and blocks, the configure, the
install script and the test command's closing lines, each checked without a GPU (and mostly without
compiling anything: stand-ins record what nvcc, apt-get, pip or ctest were asked to do).

    python3 tests/test_first_hour.py [-v] [CLASS ...]

FIRST_HOUR_REPO (default: this checkout) is the repository under test; FIRST_HOUR_CMAKE the cmake to
configure with (default: cmake on PATH); FIRST_HOUR_PROGRAM_dot (_banks, _transpose) the built programs
whose command lines CommandLines checks.
"""
import json
import os
import re
import shutil
import sys
import unittest

from testkit import InTemporaryFolder, read, run, write
import layout  # noqa: E402

REPO = os.path.abspath(os.environ.get("FIRST_HOUR_REPO") or os.path.join(os.path.dirname(__file__), os.pardir))
CMAKE = os.environ.get("FIRST_HOUR_CMAKE") or "cmake"
# A line of the hand-build block: a subshell that enters one chapter, builds it, and may run the program there.
HAND_BUILD_LINE = re.compile(r"^\(cd (?P<folder>[\w.-]+) && (?P<nvcc>nvcc .+?)(?: && (?P<run>\./[\w.-]+[^()]*))?\)$")
HEADINGS = {"README.md": "## Build one chapter by hand", "README.zh-CN.md": "## 手工编译单独一章"}
NVCC_VERSION = """nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2025 NVIDIA Corporation
Built on Wed_Aug_20_01:58:59_PM_PDT_2025
Cuda compilation tools, release 13.0, V13.0.88
Build cuda_13.0.r13.0/compiler.36424714_0
"""
# Stands in for nvcc: --version prints $FAKE_NVCC_VERSION (or 13.0's); otherwise it logs where it ran
# and with what, checks that its .cu inputs and ../common are there, fails when FAKE_NVCC_FAIL is set,
# and writes the -o file: a program that logs that it ran and exits 77, as the real ones do without a GPU.
FAKE_NVCC = r"""#!/bin/sh
if [ "$1" = "--version" ]; then printf '%s\n' "${FAKE_NVCC_VERSION:-$DEFAULT_VERSION}"; exit 0; fi
printf '%s\t%s\t%s\n' "$PWD" "nvcc $*" "$(ls .. | tr '\n' ' ')" >>"$NVCC_LOG"
out=
previous=
for argument in "$@"; do
    [ "$previous" = "-o" ] && out=$argument
    case $argument in *.cu) [ -f "$argument" ] || { echo "nvcc: no $argument in $PWD" >&2; exit 1; } ;; esac
    previous=$argument
done
[ -d ../common ] || { echo "nvcc: no ../common beside $PWD" >&2; exit 1; }
[ -z "$FAKE_NVCC_FAIL" ] || { echo "nvcc: failing as asked" >&2; exit 1; }
printf '#!/bin/sh\necho "%s ran in $PWD" >>"$NVCC_LOG.runs"\nexit 77\n' "$out" >"$out"
chmod +x "$out"
""".replace("$DEFAULT_VERSION", "'%s'" % NVCC_VERSION.strip())
# Stands in for the python3 of a machine without matplotlib.
PYTHON3 = 'case "$*" in *"import matplotlib"*) exit 1 ;; esac\nexec /usr/bin/env PATH="$REAL_PATH" python3 "$@"\n'
# pip download, standing in: one wheel holding NVIDIA's cuobjdump and nvdisasm, in the folder -d names.
FAKE_WHEELS = r"""case "$*" in "-m pip download"*)
    folder=$(echo "$*" | sed 's/.* -d \([^ ]*\) .*/\1/')
    exec /usr/bin/env PATH="$REAL_PATH" python3 -c 'import sys, zipfile
with zipfile.ZipFile(sys.argv[1] + "/nvidia_cuda_cuobjdump-13.0-py3-none-any.whl", "w") as wheel:
    for tool in ("cuobjdump", "nvdisasm"): wheel.writestr("nvidia/cu13/bin/" + tool, "#!/bin/sh\n")' "$folder" ;;
esac
"""


def chapters():
    """{chapter folder: (its .cu, the header's nvcc line builds_alone.sh runs: its first)} as the .cu files say now."""
    return {folder: (program + ".cu", run(["sh", os.path.join(REPO, "scripts", "builds_alone.sh"), "--line",
                                           os.path.join(REPO, folder), program + ".cu"]).stdout.strip())
            for folder, program in layout.chapters(REPO).items()}


def hand_build_block(readme):
    """The lines of the first ```sh block under the README's hand-build heading (comments dropped)."""
    text = read(os.path.join(REPO, readme))
    heading = HEADINGS[readme]
    if heading not in text.splitlines():
        raise AssertionError("%s has no heading '%s'" % (readme, heading))
    block = re.search(r"^```sh\n(.*?)^```$", text[text.index(heading):], re.S | re.M)
    if not block:
        raise AssertionError("%s: no ```sh block under '%s'" % (readme, heading))
    lines = [line.split(" #")[0].rstrip() for line in block.group(1).splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def listed_chapters(readme):
    """The chapter folders the README's table of chapters lists."""
    return re.findall(r"(?m)^\| \[`(ch\d\d_[\w-]+)/`\]", read(os.path.join(REPO, readme)))


class CudaArchitectures(InTemporaryFolder):
    """cmake/CudaArchitectures.cmake in a project that includes it as the top-level CMakeLists.txt does
    (items 2 and 3), with nvidia-smi standing in: one that sees no GPU, or one that sees a 9.0."""

    def setUp(self):
        super().setUp()
        write(self.path("project", "CMakeLists.txt"), """cmake_minimum_required(VERSION 3.22)
include("%s/cmake/CudaArchitectures.cmake")
choose_cuda_architectures()
project(stub LANGUAGES NONE)
message(STATUS "stub: '${CMAKE_CUDA_ARCHITECTURES}'")
""" % REPO.replace("\\", "/"))
        write(self.path("no_gpu", "nvidia-smi"), "#!/bin/sh\necho 'NVIDIA-SMI has failed because it could not "
                                                 "communicate with the NVIDIA driver.' >&2\nexit 9\n", executable=True)
        write(self.path("gpu", "nvidia-smi"), "#!/bin/sh\necho 9.0\n", executable=True)

    def configure(self, *arguments, gpu=False, environment=None):
        """cmake -S project -B build ARGUMENTS: (exit code, stdout, stderr)."""
        env = {k: v for k, v in os.environ.items() if k != "CUDAARCHS"}
        env.update(environment or {})
        env["PATH"] = self.path("gpu" if gpu else "no_gpu") + os.pathsep + os.environ["PATH"]
        done = run([CMAKE, "-S", self.path("project"), "-B", self.path("build")] + list(arguments), env=env)
        return done.returncode, done.stdout, done.stderr

    def architectures(self, stdout):
        """The 'CUDA architectures: ...' line configure printed, and what the project was given."""
        line = re.search(r"^-- (CUDA architectures: .*)$", stdout, re.M)
        value = re.search(r"^-- stub: '(.*)'$", stdout, re.M)
        return (line.group(1) if line else None), (value.group(1) if value else None)

    def test_native_without_a_gpu_stops_with_one_sentence_whose_advice_works_in_the_same_folder(self):
        code, _, stderr = self.configure("-DCMAKE_CUDA_ARCHITECTURES=native")
        self.assertNotEqual(code, 0)
        message = re.search(r"^CMake Error at [^\n]*\(message\):\n(.*?)\n(?:Call Stack|\n)", stderr, re.S | re.M)
        self.assertTrue(message, stderr)
        text = message.group(1)
        self.assertEqual(len(text.splitlines()), 1, "the message is not one line:\n" + stderr)
        self.assertEqual(len(re.findall(r"[.!?](?:\s|$)", text.strip())), 1, "not one sentence: " + text)
        advised = re.findall(r"-DCMAKE_CUDA_ARCHITECTURES=(\w+)", text)
        self.assertTrue(advised and "native" not in advised and "without the option" in text, text)
        cache = read(self.path("build", "CMakeCache.txt"))
        self.assertNotRegex(cache, r"(?m)^CMAKE_CUDA_ARCHITECTURES:", "the cache kept 'native'")
        # The advice, in the same folder: without the option, then with the value it names.
        code, stdout, stderr = self.configure()
        self.assertEqual((code, self.architectures(stdout)[0]), (0, "CUDA architectures: all-major (no GPU visible: "
                         "every major architecture, plus PTX for newer GPUs)") if self.new_cmake() else
                         (0, "CUDA architectures: 75-real;80-real;86-real;89-real;90-real;90-virtual (no GPU visible: "
                          "Turing to Hopper, plus PTX for newer GPUs)"), stderr)
        code, stdout, stderr = self.configure("-DCMAKE_CUDA_ARCHITECTURES=native")
        self.assertNotEqual(code, 0)
        code, stdout, stderr = self.configure("-DCMAKE_CUDA_ARCHITECTURES=%s" % advised[0])
        self.assertEqual((code, self.architectures(stdout)), (0, ("CUDA architectures: %s (given by the user)"
                                                                  % advised[0], advised[0])), stderr)

    def cmake_version(self):
        return tuple(map(int, re.search(r"version (\d+)\.(\d+)", run([CMAKE, "--version"]).stdout).groups()))

    def new_cmake(self):
        return self.cmake_version() >= (3, 24)

    def choice_for_a_9_0_gpu(self):
        """The line and value for an H100 or H200: its arch-specific code where CMake is known to build it."""
        if self.cmake_version() >= (3, 25):
            return ("CUDA architectures: 90a (a GPU is visible, compute capability 9.0: 90a, Hopper's own "
                    "instructions)", "90a")
        native = "native" if self.new_cmake() else "90"
        return "CUDA architectures: %s (a GPU is visible, compute capability 9.0)" % native, native

    def test_our_own_choice_is_never_reported_as_the_users(self):
        chosen = "all-major" if self.new_cmake() else "75-real;80-real;86-real;89-real;90-real;90-virtual"
        for _ in range(2):  # configure, then configure again: the same choice, the same reason
            code, stdout, _ = self.configure()
            self.assertEqual(code, 0)
            line, value = self.architectures(stdout)
            self.assertEqual(value, chosen)
            self.assertRegex(line, r"\(no GPU visible")
        for _ in range(2):  # a GPU appears: the choice follows it, still not the user's
            code, stdout, _ = self.configure(gpu=True)
            self.assertEqual((code, self.architectures(stdout)),
                             (0, self.choice_for_a_9_0_gpu()))
        for arguments in (["-DCMAKE_CUDA_ARCHITECTURES=80"], []):  # the user's value, kept by the cache
            code, stdout, _ = self.configure(*arguments, gpu=True)
            self.assertEqual((code, self.architectures(stdout)), (0, ("CUDA architectures: 80 (given by the user)",
                                                                      "80")))
        code, stdout, _ = self.configure("-UCMAKE_CUDA_ARCHITECTURES")
        self.assertEqual(self.architectures(stdout)[1], chosen)
        for _ in range(2):
            code, stdout, _ = self.configure(environment={"CUDAARCHS": "86"})
            self.assertEqual(self.architectures(stdout),
                             ("CUDA architectures: 86 (from the CUDAARCHS environment variable)", "86"))

    def test_a_folder_configured_before_forgets_the_choice_it_cached(self):
        """Build folders configured before the choice stopped living in the cache hold it there."""
        write(self.path("build", "CMakeCache.txt"), "//GPU architectures to build for\n"
                                                    "CMAKE_CUDA_ARCHITECTURES:STRING=all-major\n")
        code, stdout, _ = self.configure(gpu=True)
        self.assertEqual((code, self.architectures(stdout)[0]), (0, self.choice_for_a_9_0_gpu()[0]))


class BuildsAloneCache(InTemporaryFolder):
    """scripts/builds_alone.sh (item 7): honest (the header's line, from a copy of the chapter's folder and
    common/ alone) and not redone while nothing it reads has changed."""
    SOURCE = "/* a fake chapter\n *   nvcc -O3 -I../common prog.cu -o prog\n */\nint main(void) { return 0; }\n"

    def setUp(self):
        super().setUp()
        write(self.path("repo", "ch99_fake", "prog.cu"), self.SOURCE)
        write(self.path("repo", "common", "book.h"), "/* the book's header */\n")
        write(self.path("bin", "nvcc"), FAKE_NVCC, executable=True)
        self.log = self.path("nvcc.log")

    def build(self, cache=True, cwd=None, **environment):
        """Runs builds_alone.sh: (exit code, output, how many times nvcc compiled so far)."""
        arguments = [self.path("repo", "ch99_fake"), "prog.cu", self.path("repo", "common"), self.path("bin", "nvcc")]
        env = dict(os.environ, NVCC_LOG=self.log, **environment)
        done = run(["sh", os.path.join(REPO, "scripts", "builds_alone.sh")] + arguments +
                   ([self.path("cache")] if cache else []), cwd=cwd or self.folder, env=env)
        compiles = len(read(self.log).splitlines()) if os.path.exists(self.log) else 0
        return done.returncode, done.stdout + done.stderr, compiles

    def test_first_run_compiles_an_unchanged_rerun_reuses(self):
        code, output, compiles = self.build()
        self.assertEqual((code, compiles), (0, 1), output)
        self.assertIn("ok: built prog", output)
        where, command, beside = read(self.log).split("\t")
        self.assertEqual((os.path.basename(where), command, beside.split()),
                         ("ch99_fake", "nvcc -O3 -I../common prog.cu -o prog", ["ch99_fake", "common"]))
        code, output, compiles = self.build()
        self.assertEqual((code, compiles), (0, 1), output)
        self.assertRegex(output, r"(?m)^reused: this line built prog ")
        self.assertRegex(output, r"(?m)^ok: nothing compiled$")

    def test_any_change_to_what_the_build_reads_compiles_again(self):
        self.assertEqual(self.build()[2], 1)
        changes = [lambda: write(self.path("repo", "common", "book.h"), "/* changed */\n"),
                   lambda: write(self.path("repo", "common", "new.h"), "/* a new header */\n"),
                   lambda: write(self.path("repo", "ch99_fake", "prog.cu"), self.SOURCE.replace("-O3", "-O2")),
                   lambda: write(self.path("repo", "ch99_fake", "README.md"), "lesson\n")]
        for count, change in enumerate(changes, start=2):
            change()
            code, output, compiles = self.build()
            self.assertEqual((code, compiles), (0, count), output)
            self.assertEqual(self.build()[2], count)  # and then reused
        code, output, compiles = self.build(FAKE_NVCC_VERSION="Cuda compilation tools, release 13.1, V13.1.1")
        self.assertEqual((code, compiles), (0, len(changes) + 2), output)

    def test_a_failed_build_is_not_remembered(self):
        write(self.path("repo", "common", "book.h"), "/* broken */\n")
        self.assertEqual(self.build(FAKE_NVCC_FAIL="1")[:1], (1,))
        code, output, compiles = self.build(FAKE_NVCC_FAIL="1")
        self.assertEqual((code, compiles), (1, 2), output)

    def test_without_a_cache_folder_every_run_compiles_and_ctest_folders_get_one(self):
        self.assertEqual(self.build(cache=False)[2], 1)
        self.assertEqual(self.build(cache=False)[2], 2)
        write(self.path("ctest", "CTestTestfile.cmake"), "# a CTest build folder\n")
        self.assertEqual(self.build(cache=False, cwd=self.path("ctest"))[2], 3)
        code, output, compiles = self.build(cache=False, cwd=self.path("ctest"))
        self.assertEqual(compiles, 3, output)
        self.assertTrue(os.listdir(self.path("ctest", "builds_alone_cache")))


class InstallDeps(InTemporaryFolder):
    """scripts/install_deps.sh (item 6) never writes into a Python: matplotlib comes from the distribution,
    no pip install of any kind; nvcc's release line is printed."""

    def test_the_script_has_no_pip_install(self):
        code = [line.split("#")[0] for script in ("install_deps.sh", "wheels.sh")  # wheels.sh: its pip download
                for line in read(os.path.join(REPO, "scripts", script)).splitlines()]
        self.assertEqual([line.strip() for line in code if re.search(r"pip3?\b.*\binstall\b|--break-system", line)],
                         [], "install_deps.sh or wheels.sh runs pip install")
        self.assertTrue([line for line in code if re.search(r"\bpython3-matplotlib\b", line)])

    def test_with_nothing_installed_matplotlib_comes_from_apt_and_no_python_is_touched(self):
        # A python3 without matplotlib, whose pip would install if asked: every call of it and of pip is recorded.
        done, calls = self.install_deps(self.stand_ins("", sudo='exec "$@"\n', pips=True, python3=(
            'echo "python3 $*" >>"$FAKE_LOG"\ncase "$*" in *"import matplotlib"*) exit 1 ;; "-m pip"*) exit 0 ;; esac\n'
            'exec /usr/bin/env -u FAKE_LOG PATH="$REAL_PATH" python3 "$@"\n')))
        self.assertFalse([call for call in calls if re.search(r"\bpip3?\b.*\binstall\b|^pip", call)],
                         "pip was asked to install:\n" + "\n".join(calls))
        self.assertTrue([call for call in calls if call.startswith("apt-get install") and "python3-matplotlib" in call],
                        "\n".join(calls))
        self.assertIn("install_deps: nvcc: Cuda compilation tools, release 13.0, V13.0.88", done.stdout, done.stdout)
        self.assertNotIn("Build cuda_13.0", done.stdout)
        self.assertRegex(done.stdout + done.stderr, r"matplotlib")  # says that the drawing will be skipped

    def stand_ins(self, apt_get, sudo=None, uid=None, pips=False, cuobjdump=True, python3=PYTHON3):
        """A bin folder: dpkg-query that finds no package, APT_GET as apt-get (it logs its calls), PYTHON3 as a
        python3 without matplotlib, nvcc, cuobjdump unless not, and where given a sudo, an id, a pip and pip3 (each
        logs its calls; pip fails). Returns the environment."""
        bin_dir, log = self.path("bin"), self.path("log")
        record = '#!/bin/sh\necho "%s $*" >>"$FAKE_LOG"\n'
        tools = {"dpkg-query": "#!/bin/sh\necho 'not-installed'\n", "apt-get": record % "apt-get" + apt_get,
                 "python3": "#!/bin/sh\n" + python3, "nvcc": FAKE_NVCC}
        tools.update({"cuobjdump": "#!/bin/sh\n"} if cuobjdump else {})
        tools.update({"sudo": record % "sudo" + sudo} if sudo is not None else {})
        tools.update({"id": "#!/bin/sh\necho %d\n" % uid} if uid is not None else {})
        tools.update({pip: record % pip + "exit 1\n" for pip in ("pip", "pip3")} if pips else {})
        for name, text in tools.items():
            write(os.path.join(bin_dir, name), text, executable=True)
        return dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"], FAKE_LOG=log,
                    REAL_PATH=os.environ["PATH"], SYSTEM_PYTHON=os.path.join(bin_dir, "python3"),
                    INSTALL_DEPS_REPORT=self.path("report"))

    def install_deps(self, environment):
        done = run(["bash", os.path.join(REPO, "scripts", "install_deps.sh")], env=environment, cwd=self.folder)
        calls = read(self.path("log")).splitlines() if os.path.exists(self.path("log")) else []
        return done, calls

    def test_apt_get_failing_costs_only_what_needs_the_packages(self):
        """No package mirror: apt-get exits 100. The script says so, names each package still missing with
        what it costs, and exits 0, since cmake, make, gcc and g++ are there (item 1: it stopped the test
        command after 7 s)."""
        done, calls = self.install_deps(self.stand_ins(
            "echo 'E: Unable to locate package' >&2\nexit 100\n"))
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertTrue([call for call in calls if call.startswith("apt-get install")], calls)
        self.assertRegex(done.stderr, r"(?m)^install_deps: apt-get install failed for .*\blibpng-dev\b.*; going on "
                                      r"without them$")
        self.assertIn("install_deps: apt-get update failed (no package mirror reachable?)", done.stderr)
        costs = {"libpng-dev": "ch05_shared_bitmap is not built", "libgl1-mesa-dri": "bitmap_window_xvfb",
                 "freeglut3-dev": "the bitmap chapter has no window",
                 "python3-matplotlib": "plots are not drawn (tables are)"}
        for package, cost in costs.items():
            self.assertRegex(done.stderr, r"(?m)^not installed: %s: .*%s" % (re.escape(package), re.escape(cost)))
        self.assertEqual(read(self.path("report")).splitlines(),
                         [line for line in done.stderr.splitlines() if line.startswith("not installed: ")])
        self.assertIn("install_deps: nvcc: ", done.stdout)

    def test_a_toolkit_without_cuobjdump_gets_nvidias_wheels_unpacked_into_tools(self):
        """NVIDIA's minimal toolkit has no cuobjdump: its wheels from PyPI (a stand-in pip download here) are
        unpacked by scripts/wheels.sh into .tools/bin, where scripts/cuda_tool.sh looks; no Python is touched."""
        environment = self.stand_ins("exit 0\n", cuobjdump=False, python3=FAKE_WHEELS + PYTHON3)
        found = run(["sh", os.path.join(REPO, "scripts", "cuda_tool.sh"), "cuobjdump"], env=environment)
        if found.returncode == 0 and not found.stdout.startswith(self.folder):  # a GPU machine's /usr/local/cuda
            self.skipTest("this machine's toolkit has a cuobjdump where cuda_tool.sh looks, outside PATH: "
                          "%s, which the test cannot hide" % found.stdout.strip())
        done, _ = self.install_deps(environment)
        self.assertIn("install_deps: cuobjdump and nvdisasm unpacked into .tools/bin", done.stdout, done.stderr)
        self.assertEqual(sorted(os.listdir(self.path(".tools", "bin"))), ["cuobjdump", "nvdisasm"])

    def test_without_root_or_sudo_one_line_and_on(self):
        for sudo in ("echo 'sudo: a password is required' >&2\nexit 1\n", None):
            with self.subTest(sudo="asks for a password" if sudo else "missing"):
                environment = self.stand_ins("exit 0\n", sudo=sudo, uid=1000)
                if sudo is None:  # no sudo anywhere on PATH: the stand-ins' folder and the basic tools only
                    tools = self.path("tools")
                    os.makedirs(tools, exist_ok=True)
                    for tool in ("bash", "sh", "env", "grep", "tee", "mktemp", "dirname", "rm", "mkdir", "cat", "cmake",
                                 "make", "gcc", "g++"):
                        found = shutil.which(tool)
                        if found and not os.path.exists(os.path.join(tools, tool)):
                            os.symlink(found, os.path.join(tools, tool))
                    environment["PATH"] = self.path("bin") + os.pathsep + tools
                    environment["REAL_PATH"] = os.environ["PATH"]
                done, calls = self.install_deps(environment)
                lines = [line for line in done.stderr.splitlines() if not line.startswith("not installed: ")]
                self.assertRegex(lines[0] if lines else "", r"^install_deps: not root, and sudo is missing or asks "
                                 r"for a password: not installing .*libpng-dev.*; going on without them$", done.stderr)
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertFalse([call for call in calls if "apt-get" in call], calls)
                self.assertEqual([call for call in calls if not call.startswith("sudo -n ")], [])  # never a prompt


JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="6" failures="1" disabled="0" skipped="4" hostname="" time="1" timestamp="">
  <testcase name="dot_help" classname="dot_help" time="0.1" status="run"><system-out>ok</system-out></testcase>
  <testcase name="dot_bad_input" classname="dot_bad_input" time="0.1" status="fail">
    <failure message=""/><system-out>FAIL</system-out></testcase>
  <testcase name="dot_float_book" classname="dot_float_book" time="0.1" status="notrun">
    <skipped message="SKIP_RETURN_CODE=77"/>
    <system-out>dot: no CUDA device was found: no NVIDIA driver is installed (libcuda.so.1 is missing). Nothing was run.
</system-out></testcase>
  <testcase name="dot_memcheck" classname="dot_memcheck" time="0.1" status="notrun">
    <skipped message="SKIP_RETURN_CODE=77"/><system-out>compute-sanitizer is not installed: skipped
</system-out></testcase>
  <testcase name="bitmap_window_xvfb" classname="bitmap_window_xvfb" time="0.1" status="notrun">
    <skipped message="SKIP_RETURN_CODE=77"/><system-out>skipped: Xvfb is not installed</system-out></testcase>
  <testcase name="broken_driver" classname="broken_driver" time="0" status="notrun">
    <skipped message="Unable to find executable"/></testcase>
</testsuite>
"""
LABELS = """{"kind": "ctestInfo", "version": {"major": 1, "minor": 0}, "tests": [
  {"name": "dot_help", "properties": [{"name": "LABELS", "value": ["host"]}]},
  {"name": "dot_bad_input", "properties": [{"name": "LABELS", "value": ["host"]}]},
  {"name": "dot_float_book", "properties": [{"name": "LABELS", "value": ["gpu"]}]},
  {"name": "dot_memcheck", "properties": [{"name": "LABELS", "value": ["sanitizer"]}]},
  {"name": "bitmap_window_xvfb", "properties": [{"name": "LABELS", "value": ["host"]}]},
  {"name": "broken_driver", "properties": [{"name": "LABELS", "value": ["host"]}]}]}
"""
CI_LINE = re.compile(r"^(?:\w+: )?\d+ passed, \d+ failed(?:, \d+ skipped)?$")  # what the CI reads
# Stands in for ctest: --show-only prints the test list; a run writes the JUnit file and exits $FAKE_CTEST_EXIT.
FAKE_CTEST = """#!/bin/sh
for argument in "$@"; do case $argument in --show-only=*) cat "$FAKE_LABELS"; exit 0 ;; esac; done
while [ $# -gt 0 ]; do [ "$1" = "--output-junit" ] && cp "$FAKE_JUNIT" "$2"; shift; done
echo "ctest: the tests' own lines"
exit "${FAKE_CTEST_EXIT:-0}"
"""


class TestsSummary(InTemporaryFolder):
    """The test command's closing lines (item 8): how many ran, passed, failed, were skipped and why,
    last a line the CI reads; the command's exit status stays CTest's."""

    def summary(self, junit=JUNIT, labels=LABELS):
        done = run([sys.executable, os.path.join(REPO, "scripts", "ctest_summary.py"), write(self.path("j.xml"), junit),
                    write(self.path("t.json"), labels)])
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout.splitlines()

    def test_counts_as_ctest_does_and_says_why_tests_were_skipped(self):
        self.assertEqual(self.summary(), [
            "skipped: bitmap_window_xvfb: Xvfb is not installed",
            "failed: dot_bad_input, broken_driver",
            "ran 3 of 6 tests; 2 skipped: they need a CUDA GPU (labels gpu, sanitizer) and none was found (no NVIDIA "
            "driver is installed (libcuda.so.1 is missing)); 1 skipped for the reason above",
            "tests: 1 passed, 2 failed, 3 skipped"])
        with_a_gpu = re.sub(r'status="notrun">\s*<skipped message="SKIP_RETURN_CODE=77"/>\s*<system-out>dot: no CUDA',
                            'status="run"><system-out>dot: a CUDA', JUNIT)
        self.assertEqual(self.summary(with_a_gpu), [
            "skipped: dot_memcheck: compute-sanitizer is not installed",
            "skipped: bitmap_window_xvfb: Xvfb is not installed",
            "failed: dot_bad_input, broken_driver",
            "ran 4 of 6 tests; 2 skipped for the reasons above",
            "tests: 2 passed, 2 failed, 2 skipped"])
        everything_ran = ('<testsuite tests="1"><testcase name="a" status="run"/></testsuite>')
        self.assertEqual(self.summary(everything_ran, "{}"), ["ran 1 of 1 tests; none skipped",
                                                              "tests: 1 passed, 0 failed, 0 skipped"])
        self.assertRegex(self.summary()[-1], CI_LINE)

    def test_tests_the_command_left_out_are_named_not_counted_as_run(self):
        listed = json.loads(LABELS)
        listed["tests"].append({"name": "mutants", "properties": [{"name": "LABELS", "value": ["mutants"]}]})
        lines = self.summary(labels=json.dumps(listed))
        self.assertEqual(lines[1], "not run: 1 tests (label mutants): left out of this command; "
                                   "EXAMPLES_MUTANTS=1 bash scripts/run_tests.sh runs them too")
        self.assertTrue(lines[-2].startswith("ran 3 of 7 tests;") and lines[-2].endswith("; 1 not run (above)"),
                        lines[-2])
        self.assertEqual(lines[-1], "tests: 1 passed, 2 failed, 3 skipped")

    def test_an_unreadable_file_is_said_and_exits_2(self):
        done = run([sys.executable, os.path.join(REPO, "scripts", "ctest_summary.py"), self.path("none.xml")])
        self.assertEqual(done.returncode, 2)
        self.assertIn("none.xml", done.stderr)

    def run_tests(self, junit, dpkg="echo 'install ok installed'", apt_exit=0, **environment):
        """scripts/run_tests.sh itself, with apt (DPKG says what is installed), nvcc, cmake and ctest standing in."""
        bin_dir = self.path("bin")
        for name, text in (("ctest", FAKE_CTEST), ("cmake", "#!/bin/sh\necho \"cmake $*\" >>\"$FAKE_LOG\"\n"),
                           ("nvcc", FAKE_NVCC), ("cuobjdump", "#!/bin/sh\n"), ("dpkg-query", "#!/bin/sh\n%s\n" % dpkg),
                           ("apt-get", "#!/bin/sh\necho \"apt-get $*\" >>\"$FAKE_LOG\"\nexit %d\n" % apt_exit)):
            write(os.path.join(bin_dir, name), text, executable=True)
        write(self.path("j.xml"), junit)
        write(self.path("t.json"), LABELS)
        return run(["bash", os.path.join(REPO, "scripts", "run_tests.sh")], env=dict(
            os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"], BUILD_DIR=self.path("build"),
            FAKE_LOG=self.path("log"), FAKE_JUNIT=self.path("j.xml"), FAKE_LABELS=self.path("t.json"), **environment))

    def test_run_tests_ends_with_the_summary_and_exits_as_ctest_did(self):
        os.makedirs(self.path("build"))
        for ctest_exit, last in (("8", "tests: 1 passed, 2 failed, 3 skipped"), ("0", None)):
            done = self.run_tests(JUNIT if last else JUNIT.replace('status="fail"', 'status="run"'),
                                  FAKE_CTEST_EXIT=ctest_exit, CI="true")
            self.assertEqual(done.returncode, int(ctest_exit), done.stdout + done.stderr)
            lines = done.stdout.splitlines()
            self.assertRegex(lines[-1], CI_LINE, done.stdout)
            self.assertEqual(lines[-1], last or "tests: 2 passed, 1 failed, 3 skipped")
            self.assertRegex(lines[-2], r"^ran \d+ of \d+ tests; .*need a CUDA GPU")

    def test_run_tests_goes_on_when_apt_get_fails_and_names_what_it_cost(self):
        """The done-when of item 1: apt-get install exits 100 (no mirror); the test command still configures,
        builds and runs the tests, and its closing lines name each missing package and what it cost."""
        done = self.run_tests(JUNIT.replace('status="fail"', 'status="run"'), "case $3 in libgl1-mesa-dri|libpng-dev) "
                              "echo not-installed ;; *) echo 'install ok installed' ;; esac", apt_exit=100)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        calls = read(self.path("log")).splitlines()
        self.assertTrue([c for c in calls if c.startswith("apt-get install")] and
                        [c for c in calls if c.startswith("cmake --build")], calls)
        lines = done.stdout.splitlines()
        self.assertEqual(lines[-1], "tests: 2 passed, 1 failed, 3 skipped")
        self.assertRegex(lines[-2], r"^ran \d+ of \d+ tests; ")
        self.assertTrue([line for line in lines if line.startswith("not installed: libpng-dev: ch05_shared_bitmap is "
                                                                    "not built")], done.stdout)
        self.assertTrue([line for line in lines if line.startswith("not installed: libgl1-mesa-dri: "
                                                                    "bitmap_window_xvfb")], done.stdout)
        missing = [i for i, line in enumerate(lines) if line.startswith("not installed: ")]
        self.assertGreater(min(missing), max(i for i, line in enumerate(lines) if line.startswith("ctest: ")),
                           "the missing packages are not among the closing lines:\n" + done.stdout)


class ReadmeHandBuild(InTemporaryFolder):
    """README's "Build one chapter by hand" (item 1): pasted whole from the repository's root it builds every
    chapter with exactly its header's nvcc line, and leaves nothing untracked in git status."""

    def test_each_line_enters_its_chapter_in_a_subshell_with_the_headers_nvcc_line(self):
        expected = chapters()
        self.assertTrue(expected, "no chapter with an nvcc line in its header")
        for readme in HEADINGS:
            listed = listed_chapters(readme)
            self.assertTrue(listed and set(listed) <= set(expected), "%s lists %s" % (readme, listed))
            lines, built = hand_build_block(readme), []
            for line in lines:
                match = HAND_BUILD_LINE.match(line)
                self.assertTrue(match, "%s: '%s' is not '(cd CHAPTER && NVCC_LINE)': pasted with the other lines, "
                                       "the next line would run inside the chapter" % (readme, line))
                folder = match.group("folder")
                self.assertIn(folder, expected, "%s: '%s' enters no chapter" % (readme, line))
                self.assertEqual(match.group("nvcc"), expected[folder][1],
                                 "%s: the line for %s is not its header's nvcc line" % (readme, folder))
                built.append(folder)
            self.assertEqual(sorted(built), sorted(listed), "%s: each chapter of its table once" % readme)

    def test_pasted_whole_it_builds_every_chapter_and_git_status_stays_clean(self):
        """The block's lines run one after another in one shell (a paste), with nvcc standing in, in a git
        repository holding the chapters' sources, common/ and the repository's .gitignore."""
        root = self.path("clone")
        built = {folder: line for folder, line in chapters().items() if folder in listed_chapters("README.md")}
        for folder, (source, _) in built.items():
            os.makedirs(self.path("clone", folder))
            shutil.copy(os.path.join(REPO, folder, source), self.path("clone", folder, source))
        shutil.copytree(os.path.join(REPO, "common"), self.path("clone", "common"))
        shutil.copy(os.path.join(REPO, ".gitignore"), self.path("clone", ".gitignore"))
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
        for command in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "sources"]):
            self.assertEqual(run(git + command, cwd=root).returncode, 0, command)
        write(self.path("bin", "nvcc"), FAKE_NVCC, executable=True)
        log = self.path("nvcc.log")
        environment = dict(os.environ, PATH=self.path("bin") + os.pathsep + os.environ["PATH"], NVCC_LOG=log)
        for readme in HEADINGS:
            for stale in (log, log + ".runs"):
                if os.path.exists(stale):
                    os.remove(stale)
            lines = hand_build_block(readme)
            pasted = run(["bash"], input="\n".join(lines) + "\n", cwd=root, env=environment)
            self.assertNotIn("No such file", pasted.stderr, readme)
            calls = [line.split("\t") for line in read(log).splitlines()] if os.path.exists(log) else []
            self.assertEqual(sorted((os.path.relpath(where, root), command) for where, command, _ in calls),
                             sorted((folder, nvcc) for folder, (_, nvcc) in built.items()),
                             "%s: pasted whole, not every chapter was built from its folder" % readme)
            ran = [line for line in lines if HAND_BUILD_LINE.match(line) and HAND_BUILD_LINE.match(line).group("run")]
            self.assertEqual(len(read(log + ".runs").splitlines()) if os.path.exists(log + ".runs") else 0, len(ran),
                             "%s: the programs the block runs did not run" % readme)
            status = run(git + ["status", "--porcelain", "--untracked-files=all"], cwd=root)
            self.assertEqual(status.stdout, "", "%s: after the hand builds git status shows these "
                                                "(.gitignore them):\n%s" % (readme, status.stdout))


class ReadmeNewcomer(unittest.TestCase):
    """What a newcomer looked for in the top-level READMEs and did not find (item 7): how long the commands
    take (the timed run's lines, which readme_figures keeps equal to docs/results/timings.txt), which chapter
    to start with, and why a hand-build line pins an architecture."""
    START = {"README.md": "### Where to start", "README.zh-CN.md": "### 从哪一章开始"}

    def test_times_of_every_command(self):
        for readme in HEADINGS:
            text = read(os.path.join(REPO, readme))
            block = re.search(r"^<!-- timings:begin -->\n```\n(.*?)```\n<!-- timings:end -->$", text, re.S | re.M)
            self.assertTrue(block, "%s: no timed run between the timings markers" % readme)
            for key, script in (("examples first", "run_examples.sh"), ("tests next", "run_tests.sh"), ("tests rerun", "run_tests.sh"),
                                ("tests first", "run_tests.sh"), ("examples next", "run_examples.sh")):
                self.assertRegex(block.group(1), r"(?m)^%s: %s: \d+ (min|s)\b.* in all on \d+ cores \(" % (key, script),
                                 readme)

    def test_where_to_start(self):
        for readme, heading in self.START.items():
            text = read(os.path.join(REPO, readme))
            self.assertIn(heading, text.splitlines(), readme)
            section = text[text.index(heading):].split("\n## ")[0]
            first = re.search(r"\[`(ch\d\d_\w+)/`\]", section)
            self.assertTrue(first and os.path.isdir(os.path.join(REPO, first.group(1))), readme)
            self.assertEqual(first.group(1), "ch05_dot", "%s starts elsewhere: say why there" % readme)

    def test_a_pinned_architecture_is_explained(self):
        for readme in HEADINGS:
            text = read(os.path.join(REPO, readme))
            after = text[text.index(HEADINGS[readme]):].split("\n## ")[0]
            after = after[after.index("```\n", after.index("```sh")) + 4:]  # the prose after the block
            for arch in sorted(set(re.findall(r"-arch=(sm_\d+)", "\n".join(hand_build_block(readme))))):
                self.assertIn("-arch=%s" % arch, after, "%s: the block pins %s and the text does not say why" %
                              (readme, arch))
                self.assertIn("-arch=native", after, "%s: what to put on another GPU" % readme)


class RunExamples(unittest.TestCase):
    """scripts/run_examples.sh, the README's first command, runs every chapter's program."""

    def test_every_chapter_program_is_run(self):
        script = read(os.path.join(REPO, "scripts", "run_examples.sh"))
        for folder, (_, nvcc) in chapters().items():
            program = re.search(r" -o (\S+)", nvcc).group(1)
            self.assertTrue(re.search(r'(?m)^run "\$BUILD_DIR/%s/%s"' % (folder, program), script),
                            "run_examples.sh does not run %s/%s" % (folder, program))


class NoGpuMessage(unittest.TestCase):
    """Without a GPU (CUDA_VISIBLE_DEVICES empty: none visible, on any machine) each program says so, exits 77,
    names the CPU runner's --cpu, and points to what it printed on the H100 and the H200, committed: its lesson
    and the examples' logs (item 7: the message said 'Nothing was run.' and stopped)."""
    ARGUMENTS = {"shared_bitmap": ["--check", "--no-window"]}

    def test_each_program_points_to_its_committed_outputs(self):
        programs = {name[len("FIRST_HOUR_PROGRAM_"):]: path for name, path in os.environ.items()
                    if name.startswith("FIRST_HOUR_PROGRAM_")}
        if not programs:
            self.skipTest("no FIRST_HOUR_PROGRAM_* is set")
        for program, path in sorted(programs.items()):
            with self.subTest(program=program):
                done = run([path] + self.ARGUMENTS.get(program, ["--check"]),
                           env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
                self.assertEqual(done.returncode, 77, done.stderr)
                # a build without a CUDA compiler says first why it has no GPU program (cpu_runner/only_cpu.c)
                lines = [line for line in done.stderr.splitlines() if not line.startswith("No GPU program here:")]
                self.assertRegex(lines[0], r"^%s: no CUDA device was found: .*\. Nothing was run\.$" % program)
                self.assertRegex(lines[1] if len(lines) > 1 else "", r"^%s: without a GPU its kernels run on the CPU "
                                 r"runner, .*: %s --cpu \(docs/CPU_RUNNER\.md\)$" % (program, program))
                pointer = re.match(r"^%s: what it printed on the GPUs it ran on is committed: (ch\d\d_\w+)/README\.md "
                                   r"\(the lesson and its runs\), docs/results/\{h100,h200\}/examples\.log \('=== "
                                   r"(\S+)'\); tables and plots: docs/RESULTS\.md$" % program, lines[2] if len(lines) > 2
                                   else "")
                self.assertTrue(pointer, done.stderr)
                chapter, section = pointer.groups()
                self.assertEqual(section, "%s/%s" % (chapter, program))
                self.assertTrue(os.path.isfile(os.path.join(REPO, chapter, "README.md")))
                self.assertTrue(os.path.isfile(os.path.join(REPO, "docs", "RESULTS.md")))
                # every program has run on one of the GPUs at least (a chapter newer than the H100's last loan: the H200)
                ran_on = [device for device in ("h100", "h200") if re.search(
                    r"(?m)^=== %s( |$)" % re.escape(section),
                    read(os.path.join(REPO, "docs", "results", device, "examples.log")))]
                self.assertTrue(ran_on, "no GPU's examples.log has a run of %s" % section)


    def test_run_examples_points_there_too(self):
        script = read(os.path.join(REPO, "scripts", "run_examples.sh"))
        ending = script[script.index("No CUDA device was found"):]
        named = re.findall(r"docs/[\w./]+\.(?:log|md)", ending)
        self.assertIn("docs/results/h100/examples.log", named)
        for path in named:
            self.assertTrue(os.path.isfile(os.path.join(REPO, path)), path)


class CommandLines(unittest.TestCase):
    """Bad command lines of the built programs (items 4 and 5): exit 2 with one line before any GPU call,
    --help wins wherever it stands, the too-large matrix named."""
    CASES = [  # program, arguments, exit code, stderr must match, stderr must not match
        ("dot", "--n 100 --n 200", 2, r"--n", None),
        ("banks", "--part stride --part size", 2, r"--part", None),
        ("dot", "--kernel barrier_deadlock,all", 2, r"all", r"unknown kernel"),
        ("dot", "--help", 0, None, None),
        ("dot", "--n 0 --help", 0, None, None),  # a value is not judged beside --help
        ("dot", "--help --bogus", 0, None, r"."),  # nor a typo: the usage, and nothing on stderr
        ("dot", "--bogus --help", 0, None, r"."),
        # issue 31, item 6: one wording per rule; 'all' alone; one prefix; a --save name, before the work
        ("dot", "--block 0", 2, r"^dot: --block 0: the halving tree needs a power of two from 32 to 1024$", None),
        ("dot", "--block 16", 2, r"^dot: --block 16: the halving tree needs a power of two from 32 to 1024$", None),
        ("reduce", "--block 0", 2, r"^reduce: --block 0: global, .* need a power of two from 32 to 1024", None),
        ("banks", "--part all,stride", 2, r"^banks: --part all,stride: 'all' stands alone \(all, or a list of names "
                                          r"without it\)$", None),
        ("reduce", "--demo cubes", 2, r"^reduce --demo squares: --demo needs", None),
        ("reduce", "--demo squares --n 1e8", 2, r"^reduce --demo squares: --n 100000000: ", None),
        ("reduce", "--demo squares --n 0", 2, r"^reduce --demo squares: --n needs", None),
        ("shared_bitmap", "--save x.jpg --no-window", 2, r"^shared_bitmap: --save x.jpg: the name must end in \.png", None),
        ("transpose", "--n 33554433", 2, r"33554433 x 33554433", r"matrix +is"),
    ]

    def test_cases(self):
        for program, arguments, code, matches, lacks in self.CASES:
            path = os.environ.get("FIRST_HOUR_PROGRAM_" + program)
            if not path:
                self.skipTest("FIRST_HOUR_PROGRAM_%s is not set" % program)
            with self.subTest(program=program, arguments=arguments):
                done = run([path] + arguments.split())
                case = "%s %s: exit %d, stderr %r" % (program, arguments, done.returncode, done.stderr)
                self.assertEqual(done.returncode, code, case)
                if code == 2:
                    self.assertEqual(len(done.stderr.splitlines()), 1, case)
                if code == 0 or "--help" in arguments.split():
                    self.assertRegex(done.stdout, r"(?m)^Usage: %s " % program, case)
                if matches:
                    self.assertRegex(done.stderr, matches, case)
                if lacks:
                    self.assertNotRegex(done.stderr, lacks, case)


if __name__ == "__main__":
    unittest.main()
