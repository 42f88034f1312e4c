"""The exceptions tilec raises. Every error libtile reports arrives as one of
these, with libtile's whole message (for compile errors, the located
diagnostics: `file:line:col: error: ...`, the source line and a caret)."""


class TileError(RuntimeError):
    """An error reported by libtile (a CUDA failure, a kernel that cannot be
    loaded, ...)."""


class CompileError(TileError):
    """A kernel did not compile. `diagnostics` holds the compiler's located
    messages; `locations` the (file, line, column) of each error."""

    def __init__(self, message):
        super().__init__(message)
        self.diagnostics = message
        self.locations = []
        for line in message.splitlines():
            parts = line.split(":", 4)
            if len(parts) >= 4 and parts[1].isdigit() and parts[2].isdigit() \
                    and parts[3].strip().startswith("error"):
                self.locations.append((parts[0], int(parts[1]),
                                       int(parts[2])))


class CompileWarning(UserWarning):
    """The compiler could not apply an option or hint to a kernel (the
    message says which and why: `file:line:col: warning: ...`). Kernels
    also keep their warnings in `Kernel.warnings`."""


class ArgumentError(TileError, ValueError):
    """An argument was refused (a launch's or attention's); the message names
    the argument."""


def from_message(message):
    """The exception for one of libtile's error messages."""
    if message.startswith("compiling ") or " has no kernel '" in message or \
            "defines no kernel" in message:
        return CompileError(message)
    if message.startswith(("tile::attention: ", "tile::mlaDecode: ",
                            "tile::attentionWithKVCache: ",
                            "tile_decode_plan_create: ",
                            "tile::splitKVSchedule: ",
                            "tile_split_kv_schedule: ")) and \
            not message.startswith("tile::attention: autotune") or \
            ": argument " in message or message.startswith("expected ") or \
            "': expected " in message:
        return ArgumentError(message)
    return TileError(message)
