"""The project's .tile kernels as the package's Python layers use them:
where they are (the source tree's kernels/, or an install's), each problem
class's kernel compiled once, the device's SM count, and the tickets of
kernels whose last block in finishes a tile's work."""

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


_sm_counts = {}


def sm_count(torch, device):
    """The multiprocessors of torch device `device`."""
    index = device.index if device.index is not None else \
        torch.cuda.current_device()
    if index not in _sm_counts:
        _sm_counts[index] = torch.cuda.get_device_properties(
            index).multi_processor_count
    return _sm_counts[index]


_l2_bytes = {}


def rotated(torch, device, args, inputs):
    """Argument sets for tuning a memory-bound kernel: `args` (a tuple), then
    copies in which the arguments at the indices `inputs` (tensors it only
    reads) are clones, as many as make those inputs at least twice the
    device's L2 cache in total, so that the timed launches read them from
    memory; a list with `args` alone when they already are."""
    index = device.index if device.index is not None else \
        torch.cuda.current_device()
    if index not in _l2_bytes:
        _l2_bytes[index] = torch.cuda.get_device_properties(
            index).L2_cache_size
    size = sum(args[i].numel() * args[i].element_size() for i in inputs)
    copies = -(-2 * _l2_bytes[index] // max(size, 1)) - 1
    sets = [args]
    for _ in range(min(copies, 7)):
        sets.append(tuple(a.clone() if i in inputs else a
                          for i, a in enumerate(args)))
    return sets


# (device, stream) -> i32 tickets.
_tickets = {}


def tickets(torch, device, count):
    """At least `count` i32 tickets of this device and stream, zero between
    launches: a kernel that counts its blocks in on them (an ordered scalar
    atomic_add: linear.tile's split-K, flash_decoding.tile's merge) has the
    last block in set its ticket back. A stream's launches run in order, so
    that they share them; other streams get their own. Grown as needed (at
    least doubled), leaving what an earlier caller kept its buffer."""
    from ._tensors import current_stream
    key = (device, current_stream(None))
    t = _tickets.get(key)
    if t is None or t.numel() < count:
        t = _tickets[key] = torch.zeros(
            max(count, 1024, 2 * (t.numel() if t is not None else 0)),
            device=device, dtype=torch.int32)
    return t[:count]
