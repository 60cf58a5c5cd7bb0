"""Builds the hwrec Python module (hwrec._hwrec) with the project's CMake build.

`pip install --no-build-isolation .` runs this through setuptools: CMake
configures the library and the module only (no tests, no tools) in
build/pip (or $HWREC_CMAKE_BUILD_DIR), builds the `hwrec_python` target (the extension _hwrec), and the
extension is placed in the wheel beside the pure-Python files of python/hwrec.
A re-install reuses that build directory, so it rebuilds only what changed.
$HWREC_CMAKE_ARGS adds arguments to that configure (split as a shell splits
words), e.g. "-DCMAKE_BUILD_TYPE=RelWithDebInfo".
"""

import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    match = re.search(r"project\(hwrec VERSION ([0-9.]+)", text)
    if not match:
        raise RuntimeError("CMakeLists.txt: no `project(hwrec VERSION x.y.z)` line")
    return match.group(1)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = pathlib.Path(os.environ.get("HWREC_CMAKE_BUILD_DIR", ROOT / "build" / "pip"))
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
        # Ninja when it is installed, for a new build directory (an existing
        # one keeps the generator it was made with).
        generator = []
        if (not os.environ.get("CMAKE_GENERATOR") and shutil.which("ninja")
                and not (build_dir / "CMakeCache.txt").exists()):
            generator = ["-G", "Ninja"]
        subprocess.check_call([
            "cmake", "-S", str(ROOT), "-B", str(build_dir), *generator,
            "-DCMAKE_BUILD_TYPE=Release",
            "-DHWREC_BUILD_TESTS=OFF",
            "-DHWREC_BUILD_TOOLS=OFF",
            "-DHWREC_WARNINGS_AS_ERRORS=OFF",
            "-DHWREC_PYTHON=ON",
            f"-DPython3_EXECUTABLE={sys.executable}",
            *shlex.split(os.environ.get("HWREC_CMAKE_ARGS", "")),
        ])
        subprocess.check_call(
            ["cmake", "--build", str(build_dir), "--target", "hwrec_python", "--parallel", jobs])
        built = sorted((build_dir / "python" / "hwrec").glob("_hwrec*.so"))
        if not built:
            raise RuntimeError(f"{build_dir}/python/hwrec: the build made no _hwrec module")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[0], target)


setup(
    version=project_version(),
    packages=["hwrec"],
    package_dir={"": "python"},
    package_data={"hwrec": ["*.pyi", "py.typed"]},
    ext_modules=[CMakeExtension("hwrec._hwrec")],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
