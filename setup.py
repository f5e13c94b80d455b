"""The one part of k8slb in C: `k8slb.reading._yamltree` (native/yamltree.c), which builds
k8slb's YAML trees straight from libyaml's parser (native/libyaml/, libyaml's own parser
as ruamel.yaml.clib ships it). Optional: where it cannot be compiled, the install goes on
and k8slb builds the same trees in Python (yamlcompose.py), only slower. Everything
else about the package is in pyproject.toml."""

from setuptools import Extension, setup

LIBYAML = ["api.c", "parser.c", "reader.c", "scanner.c"]

setup(
    ext_modules=[
        Extension(
            "k8slb.reading._yamltree",
            sources=["native/yamltree.c", *(f"native/libyaml/{name}" for name in LIBYAML)],
            include_dirs=["native/libyaml"],
            optional=True,
        )
    ]
)
