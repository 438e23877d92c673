"""Build the Cython kernels in ``ext/`` as the package ``frcli._ext``.

Every ``ext/*.pyx`` becomes ``frcli._ext.<name>``, and every ``ext/<family>/*.pyx`` (a folder
with an ``__init__.py``, e.g. ``ext/relief/``) ``frcli._ext.<family>.<name>``. Cross-module
``cimport``s are written as ``from frcli._ext._utils cimport ...``; Cython finds those ``.pxd``
files through a small include tree (``build/cython_include/frcli/_ext`` -> ``ext/``) made
here, so the sources can live in ``ext/`` as the project layout asks while the modules live
inside the package.
"""
import glob
import os
import sys

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup

HERE = os.path.dirname(os.path.abspath(__file__))
EXT_DIR = os.path.join(HERE, "ext")
INCLUDE_ROOT = os.path.join(HERE, "build", "cython_include")


def _include_tree() -> str:
    pkg = os.path.join(INCLUDE_ROOT, "frcli")
    os.makedirs(pkg, exist_ok=True)
    open(os.path.join(pkg, "__init__.pxd"), "a").close()
    link = os.path.join(pkg, "_ext")
    if not os.path.islink(link):
        if os.path.exists(link):
            os.remove(link)
        os.symlink(EXT_DIR, link)
    return INCLUDE_ROOT


def _ext_packages() -> dict[str, str]:
    """``frcli._ext`` and its kernel families: package name -> folder (relative paths)."""
    out = {"frcli._ext": "ext"}
    for init in sorted(glob.glob(os.path.join("ext", "*", "__init__.py"))):
        folder = os.path.dirname(init)
        out[f"frcli._ext.{os.path.basename(folder)}"] = folder
    return out


def _extension(name: str, pyx: str, compile_args, link_args) -> Extension:
    return Extension(
        name,
        [pyx],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
    )


def _extensions():
    openmp = os.environ.get("FRCLI_OPENMP", "1") != "0" and sys.platform.startswith("linux")
    compile_args = ["-O3", "-fno-math-errno"]
    link_args = []
    if openmp:
        compile_args.append("-fopenmp")
        link_args.append("-fopenmp")
    exts = []
    only = [n for n in os.environ.get("FRCLI_EXT", "").split(",") if n]  # build a subset
    for pkg, folder in _ext_packages().items():
        for pyx in sorted(glob.glob(os.path.join(folder, "*.pyx"))):
            name = os.path.splitext(os.path.basename(pyx))[0]
            if only and name not in only:
                continue
            exts.append(_extension(f"{pkg}.{name}", pyx, compile_args, link_args))
    return cythonize(
        exts,
        include_path=[_include_tree()],
        language_level=3,
        compiler_directives={
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
            "nonecheck": False,
        },
        nthreads=int(os.environ.get("FRCLI_BUILD_JOBS", "2")),
    )


setup(
    packages=find_packages(include=["frcli", "frcli.*"]) + list(_ext_packages()),
    package_dir={"frcli": "frcli", **_ext_packages()},
    package_data={pkg: ["*.pxd", "*.pyx"] for pkg in _ext_packages()},
    ext_modules=_extensions(),
)
