"""The one part of k8slb in C: `k8slb.reading._yamltree` (native/yamltree.c), which builds
k8slb's YAML trees, and the fixer's nodes (native/yamlnodes.c), straight from libyaml's
parser (native/libyaml/, libyaml's own parser as ruamel.yaml.clib ships it). Optional:
where it cannot be compiled, the install goes on and k8slb builds the same trees in Python
(yamlcompose.py) and takes the fixer's nodes from ruamel.yaml's composer, only slower. Everything
else about the package is in pyproject.toml."""

import os

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

LIBYAML = ["api.c", "parser.c", "reader.c", "scanner.c"]
OURS = ["yamltree.c", "yamlnodes.c"]


class BuildWhereItCan(build_ext):
    """An optional extension that failed to compile is only a warning; this also leaves it
    out of what an editable install links (which would otherwise look for the missing
    file and fail)."""

    def run(self) -> None:
        super().run()
        self.extensions = [
            ext for ext in self.extensions if os.path.exists(self.get_ext_fullpath(ext.name))
        ]


setup(
    ext_modules=[
        Extension(
            "k8slb.reading._yamltree",
            sources=[
                *(f"native/{name}" for name in OURS),
                *(f"native/libyaml/{name}" for name in LIBYAML),
            ],
            include_dirs=["native/libyaml"],
            optional=True,
        )
    ],
    cmdclass={"build_ext": BuildWhereItCan},
)
