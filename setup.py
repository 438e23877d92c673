"""Build the Cython kernels in ``ext/`` as the package ``frcli._ext``.

Every ``ext/*.pyx`` becomes ``frcli._ext.<name>``. Cross-module ``cimport``s are written as
``from frcli._ext._utils cimport ...``; Cython finds those ``.pxd`` files through a small
include tree (``build/cython_include/frcli/_ext`` -> ``ext/``) made here, so the sources can
live in ``ext/`` as the project layout asks while the modules live inside the package.
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


def _extensions():
    openmp = os.environ.get("FRCLI_OPENMP", "1") != "0" and sys.platform.startswith("linux")
    compile_args = ["-O3", "-fno-math-errno"]
    link_args = []
    if openmp:
        compile_args.append("-fopenmp")
        link_args.append("-fopenmp")
    exts = []
    only = [n for n in os.environ.get("FRCLI_EXT", "").split(",") if n]  # build a subset
    for pyx in sorted(glob.glob(os.path.join("ext", "*.pyx"))):
        name = os.path.splitext(os.path.basename(pyx))[0]
        if only and name not in only:
            continue
        exts.append(
            Extension(
                f"frcli._ext.{name}",
                [pyx],
                include_dirs=[np.get_include()],
                define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
                extra_compile_args=compile_args,
                extra_link_args=link_args,
            )
        )
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
    packages=find_packages(include=["frcli", "frcli.*"]) + ["frcli._ext"],
    package_dir={"frcli": "frcli", "frcli._ext": "ext"},
    package_data={"frcli._ext": ["*.pxd", "*.pyx"]},
    ext_modules=_extensions(),
)
