"""Operators compiled into the CPU kernels: each operator (a semiring's multiply, a monoid, a
binary or index-unary operator) becomes a small scalar function that numba inlines into a
kernel template.

An operator reaches the CPU backend as the object the algebra defines, read through its
attributes only: its ``c_expr`` (the C expression the GPU kernels use) is translated to a
Python expression by :func:`c_to_python`, so named and user-defined operators alike get a
compiled kernel.  :func:`module` writes one Python module per (kernel template, operators)
into a cache directory, named by a hash of its text, and imports it: the kernels are
module-level ``@kernel`` functions calling the operators as globals, so numba inlines them
*and* its on-disk cache works across processes (closures over compiled functions, or
compiled functions passed as arguments, miss the cache in every new process).

The directory is ``SPBFS_KERNEL_DIR``, else ``spbfs/kernels`` in the user's cache directory
(``XDG_CACHE_HOME`` or ``~/.cache``).  Where none is writable (a read-only install and
home), the module is built in memory instead: the same kernels, compiled in each process.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
import tempfile
import threading
import types

import numba

__all__ = ["c_to_python", "kernel_dir", "module"]

# ----------------------------------------------------------------------------- C to Python
_TOKEN = re.compile(r"\s*(?:(?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?[fFuUlL]*)"
                    r"|(?P<name>[A-Za-z_]\w*)"
                    r"|(?P<op>&&|\|\||==|!=|<=|>=|<<|>>|[-+*/%<>!~&|^?:(),]))")
#: C casts: the Python conversion (None: the output type ``T``, converted when stored).
_CASTS = {"T": None, "double": "np.float64", "float": "np.float32", "int": "np.int32",
          "int32_t": "np.int32", "long": "np.int64", "int64_t": "np.int64",
          "unsigned": "np.uint32", "uint32_t": "np.uint32", "uint64_t": "np.uint64",
          "bool": "bool", "char": "np.int8", "short": "np.int16"}
#: C functions and constants.
_FUNCS = {"fmin": "min", "fmax": "max", "min": "min", "max": "max", "abs": "abs",
          "fabs": "abs", "llabs": "abs", "sqrt": "math.sqrt", "exp": "math.exp",
          "log": "math.log", "floor": "math.floor", "ceil": "math.ceil", "pow": "math.pow"}
_CONSTS = {"true": "True", "false": "False", "INFINITY": "np.inf", "NAN": "np.nan"}
_BINARY = {"||": (1, "or"), "&&": (2, "and"), "|": (3, "|"), "^": (4, "^"), "&": (5, "&"),
           "==": (6, "=="), "!=": (6, "!="), "<": (7, "<"), "<=": (7, "<="), ">": (7, ">"),
           ">=": (7, ">="), "<<": (8, "<<"), ">>": (8, ">>"), "+": (9, "+"), "-": (9, "-"),
           "*": (10, "*"), "/": (10, "/"), "%": (10, "%")}


class _Parser:
    def __init__(self, text, names):
        self.names = names
        self.toks, pos = [], 0
        text = text.strip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                raise ValueError(f"cannot read the C expression {text!r} at {text[pos:]!r}")
            kind = m.lastgroup
            self.toks.append((kind, m.group(kind)))
            pos = m.end()
        self.k = 0

    def peek(self):
        return self.toks[self.k] if self.k < len(self.toks) else (None, None)

    def take(self, want=None):
        tok = self.peek()
        if tok[0] is None or (want is not None and tok[1] != want):
            raise ValueError(f"expected {want or 'more'} in the C expression")
        self.k += 1
        return tok

    def expr(self):  # conditional: right-associative, below every binary operator
        cond = self.binary(1)
        if self.peek()[1] != "?":
            return cond
        self.take("?")
        yes = self.expr()
        self.take(":")
        no = self.expr()
        return f"({yes} if {cond} else {no})"

    def binary(self, level):
        left = self.unary()
        while True:
            kind, text = self.peek()
            if kind != "op" or text not in _BINARY or _BINARY[text][0] < level:
                return left
            prec, py = _BINARY[text]
            self.take()
            right = self.binary(prec + 1)
            if py in ("or", "and"):  # C's logical operators give 0 or 1
                left = f"(({left}) != 0 {py} ({right}) != 0)"
            else:
                left = f"({left} {py} {right})"

    def unary(self):
        kind, text = self.peek()
        if kind == "op" and text in ("!", "-", "+", "~"):
            self.take()
            operand = self.unary()
            return f"(({operand}) == 0)" if text == "!" else f"({text}{operand})"
        if text == "(":  # a cast, or a parenthesised expression
            cast = self._cast()
            if cast is not False:
                operand = self.unary()
                return operand if cast is None else f"{cast}({operand})"
            self.take("(")
            inner = self.expr()
            self.take(")")
            return f"({inner})"
        return self.primary()

    def _cast(self):
        k = self.k + 1
        words = []
        while k < len(self.toks) and self.toks[k][0] == "name":
            words.append(self.toks[k][1])
            k += 1
        if not words or k >= len(self.toks) or self.toks[k][1] != ")":
            return False
        key = "unsigned" if words[0] == "unsigned" and len(words) == 1 else (
            "uint64_t" if words[0] == "unsigned" else ("long" if words[0] == "long" else
                                                         words[0]))
        if len(words) > 1 and words[0] not in ("unsigned", "long"):
            return False
        if key not in _CASTS:
            return False
        self.k = k + 1
        return _CASTS[key]

    def primary(self):
        kind, text = self.take()
        if kind == "num":
            return text.rstrip("fFuUlL")
        if kind == "name":
            if self.peek()[1] == "(":
                if text not in _FUNCS:
                    raise ValueError(f"unknown C function {text!r}")
                self.take("(")
                args = [self.expr()]
                while self.peek()[1] == ",":
                    self.take(",")
                    args.append(self.expr())
                self.take(")")
                return f"{_FUNCS[text]}({', '.join(args)})"
            if text in self.names:
                return text
            if text in _CONSTS:
                return _CONSTS[text]
            raise ValueError(f"unknown name {text!r} in the C expression")
        raise ValueError(f"unexpected {text!r} in the C expression")


def c_to_python(expr: str, names) -> str:
    """The Python (numba) expression of the C expression ``expr`` in variables ``names``:
    ``?:`` becomes a conditional expression, ``&&``/``||``/``!`` comparisons with 0, casts to
    ``T`` (the output type) are dropped (the result is converted when stored), other casts
    become numpy conversions.  Integer ``/`` and ``%`` follow Python (floor), not C.

    Examples
    --------
    >>> c_to_python("(x < a ? x : a)", "xaij")
    '((x if (x < a) else a))'
    >>> c_to_python("((T)x / (T)a)", "xaij")
    '((x / a))'
    >>> c_to_python("(1.0 / (double)v)", ("v", "i", "j", "thunk"))
    '((1.0 / np.float64(v)))'
    """
    p = _Parser(expr, tuple(names))
    out = p.expr()
    if p.k != len(p.toks):
        raise ValueError(f"cannot read the C expression {expr!r}")
    return out


# ----------------------------------------------------------------------------- modules
_HEADER = """\
# generated by spbfs.cpu.opcompile: do not edit (the file name is a hash of this text)
import math

import numpy as np

from spbfs.cpu._cast import like
from spbfs.cpu._jit import kernel
from spbfs.cpu._prefetch import prefetch

U = np.uint64
ONE = np.uint64(1)
SPMM_AHEAD = 8  # entries between a prefetch of B's row and its reads (spmm)
SPMM_LINES = 2  # lines of that row prefetched (spmm)
"""

_modules: dict = {}  # by text, and by (name, template, operators' ids)
_keep: list = []
_lock = threading.RLock()
_dir: list = []  # [path or None], decided once


def kernel_dir():
    """The writable directory of generated modules, or None (build them in memory).

    Examples
    --------
    >>> d = kernel_dir(); d is None or os.path.isdir(d)
    True
    """
    if _dir:
        return _dir[0]
    with _lock:
        if _dir:
            return _dir[0]
        found = None
        env = os.environ.get("SPBFS_KERNEL_DIR")
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                                  ".cache")
        for cand in ([env] if env else []) + [os.path.join(cache, "spbfs", "kernels")]:
            try:
                os.makedirs(os.path.join(cand, "__pycache__"), exist_ok=True)
                with tempfile.NamedTemporaryFile(dir=os.path.join(cand, "__pycache__")):
                    pass
            except OSError:
                continue
            found = cand
            break
        _dir.append(found)
        return found


def _source(slot, obj):
    """``def slot(...)`` of an operator: (role, object)."""
    role, op = obj
    if role == "mul":  # a semiring's multiply or a binary operator: f(x, a, i, j)
        args = "xaij"
    elif role == "add":  # a monoid: f(a, b)
        args = "ab"
    elif role == "iop":  # an index-unary operator: f(v, i, j, thunk)
        args = ("v", "i", "j", "thunk")
    else:
        raise ValueError(role)
    body = c_to_python(op.c_expr, args)
    # numpy's error model: a division by zero gives inf or NaN, as numpy and the GPU do
    return f"@kernel(error_model='numpy')\ndef {slot}({', '.join(args)}):\n    return {body}\n"


def module(name: str, template: str, **ops):
    """The module of kernel ``template`` (source whose kernels call the operators by their
    slot names; ``@KERNEL`` marks a kernel) with ``ops`` as ``slot=(role, operator)``,
    ``role`` one of ``mul``, ``add``, ``iop``.  Memoised in this process; its file (and so
    numba's cache of it) is shared by every process.

    Examples
    --------
    >>> from spbfs.semiring import ops
    >>> m = module("demo", "@KERNEL\\ndef f(x, y):\\n    return op(x, y, 0, 0)\\n",
    ...            op=("mul", ops.minus))
    >>> m.f(5, 2)
    3
    """
    key = (name, template, tuple(sorted((s, r, id(o)) for s, (r, o) in ops.items())))
    mod = _modules.get(key)
    if mod is not None:
        return mod
    text = "\n\n".join([_HEADER, *(_source(s, o) for s, o in sorted(ops.items())),
                        template.replace("@KERNEL\n", "@kernel\n")])
    mod = _modules.get(text)
    if mod is not None:
        return mod
    with _lock:
        mod = _modules.get(text)
        if mod is not None:
            return mod
        digest = hashlib.sha1((text + numba.__version__).encode()).hexdigest()[:16]
        modname = f"_spbfs_k_{name}_{digest}"
        where = kernel_dir()
        mod = None
        if where is not None:
            mod = _from_file(modname, text, where)
        if mod is None:  # nothing writable: the same kernels, compiled without a cache
            mod = types.ModuleType(modname)
            exec(compile(text, f"<{modname}>", "exec"), mod.__dict__)
        _modules[text] = _modules[key] = mod
        _keep.append(ops)  # the operators stay alive: their ids in the keys stay theirs
        return mod


def _from_file(modname, text, where):
    path = os.path.join(where, modname + ".py")
    try:
        if not os.path.exists(path):  # written once, atomically: its mtime never moves
            fd, tmp = tempfile.mkstemp(dir=where, suffix=".tmp")
            with os.fdopen(fd, "w") as fh:
                fh.write(text)
            try:
                os.link(tmp, path)  # fails when another process got there first
            except FileExistsError:
                pass
            finally:
                os.unlink(tmp)
        spec = importlib.util.spec_from_file_location(modname, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[modname] = mod
        spec.loader.exec_module(mod)
        return mod
    except OSError:
        sys.modules.pop(modname, None)
        return None
