"""The project's .tile kernels as the package's Python layers use them:
where they are (the source tree's kernels/, or an install's), and each
problem class's kernel compiled once."""

import os


def _kernel_dir():
    """kernels/ of the source tree (python/tilec/../../kernels), or of an
    install (lib/python3/dist-packages/tilec/../../../../share/tilec/
    kernels); TILEC_KERNELS overrides both."""
    if "TILEC_KERNELS" in os.environ:
        return os.environ["TILEC_KERNELS"]
    here = os.path.dirname(os.path.abspath(__file__))
    for parts in (("..", "..", "kernels"),
                  ("..", "..", "..", "..", "share", "tilec", "kernels")):
        path = os.path.normpath(os.path.join(here, *parts))
        if os.path.isfile(os.path.join(path, "flash_decoding.tile")):
            return path
    return os.path.normpath(os.path.join(here, "..", "..", "kernels"))


KERNELS = _kernel_dir()
_compiled = {}


def path(name):
    """The path of kernels/`name`."""
    return os.path.join(KERNELS, name)


def compile_once(file, kernel=None, **constants):
    """`kernel` of kernels/`file` with `constants` (and compile options),
    compiled on first use and kept."""
    from . import compile as _compile
    key = (file, kernel, tuple(constants.items()))
    k = _compiled.get(key)
    if k is None:
        k = _compiled[key] = _compile(path(file), kernel=kernel, **constants)
    return k
