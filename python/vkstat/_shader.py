"""Your own compute shaders on NumPy arrays: :meth:`Session.shader`, what
``vkstat shader run`` and ``check`` do, one shader or a sequence of them
over arrays that stay on the device between dispatches."""

from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np

from ._arrays import Lent

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs a first import 5 ms
if TYPE_CHECKING:
    from typing import Any, Callable, Sequence

    from ._session import Session


class ShaderResult(dict):
    """The arrays after the run, by name (a dict), and where and how long
    it ran: ``device``, ``gpu_ms`` (the median GPU time of the timed runs,
    from timestamps; None where the device gives none), ``first_ms`` (the
    first run's wall time, building the pipelines included), ``build_ms``
    (building them: the shaders' lazy compile), ``dispatches`` (per run)
    and ``info``, all the library reported."""

    def __init__(self, arrays: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> None:
        super().__init__(arrays)
        self.info = dict(info)
        self.device: str = info["device"]
        self.gpu_ms: float | None = info["median_ms"] if info["timed"] else None
        self.first_ms: float = info["first_ms"]
        self.build_ms: float = info["build_ms"]
        self.dispatches: int = info["dispatches"]

    def __repr__(self) -> str:
        return f"<vkstat.ShaderResult {sorted(self)} on {self.device}>"


def _value(v: Any) -> str:
    """A constant as the library parses it: 2.5, 1000, true."""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    raise TypeError(f"constant {v!r}: want a number or a bool")


def _dims(name: str, v: Any) -> list[int] | None:
    if v is None:
        return None
    dims = [int(v)] if isinstance(v, (int, np.integer)) else [int(d) for d in v]
    if not 1 <= len(dims) <= 3 or min(dims) < 1:
        raise ValueError(f"{name}={v!r}: want 1 to 3 positive sizes")
    return dims


def _step(shader: Any, bind: Mapping[str, str], push: Mapping[str, Any] | None, spec: Mapping[str, Any] | None,
          uniform: Mapping[str, Any] | None, groups: Any, global_size: Any, define: Mapping[str, Any] | None,
          include: Sequence[str] | None, target_env: str | None, times: int = 1) -> dict[str, Any]:
    """One step of the request: the shader (a path, or GLSL source: text
    with a newline) and its settings."""
    if isinstance(shader, os.PathLike) or (isinstance(shader, str) and "\n" not in shader):
        step: dict[str, Any] = {"shader": os.fspath(shader)}
    elif isinstance(shader, str):
        step = {"source": shader}
    else:
        raise TypeError(f"shader {shader!r}: want a path or GLSL source")
    if (groups is None) == (global_size is None):
        raise ValueError("give the dispatch as groups (workgroups) or global_size (invocations), one of the two")
    for name, m in (("push", push), ("spec", spec), ("uniform", uniform)):
        if m:
            step[name] = {str(k): _value(v) for k, v in m.items()}
    if define:
        step["define"] = {str(k): ("" if v is None else str(v)) for k, v in define.items()}
    if include:
        step["include"] = [os.fspath(p) for p in include]
    if target_env:
        step["target_env"] = target_env
    step["bind"] = dict(bind)
    step["groups"], step["global"] = _dims("groups", groups), _dims("global_size", global_size)
    if int(times) < 1:
        raise ValueError(f"times={times}: want 1 or more")
    step["times"] = int(times)
    return {k: v for k, v in step.items() if v is not None}


def _lend(a: Any, name: str) -> Lent:
    b = np.asarray(a)
    if b.dtype.kind not in "fiu" or b.dtype.itemsize > 8 or b.dtype.name == "float128":
        raise ValueError(f"{name} has dtype {b.dtype}; a shader binds float16, float32, float64 and 8- to 64-bit integers")
    c = np.require(b, dtype=b.dtype.newbyteorder("="), requirements=("C", "A"))
    return Lent(c, c.dtype.name, c is not b)


def shader(self: Session, shader: str | os.PathLike | None, arrays: Mapping[str, Any], *,
           push: Mapping[str, Any] | None = None, spec: Mapping[str, Any] | None = None,
           uniform: Mapping[str, Any] | None = None, groups: int | Sequence[int] | None = None,
           global_size: int | Sequence[int] | None = None, define: Mapping[str, Any] | None = None,
           include: Sequence[str] | None = None, target_env: str | None = None,
           steps: Sequence[Mapping[str, Any]] | None = None, times: int = 1, repeat: int = 1, warmup: int = 0,
           reference: Callable[..., Any] | Mapping[str, Any] | None = None, rtol: float = 1e-7,
           atol: float = 0.0) -> ShaderResult:
    """Run a compute shader of your own on NumPy arrays, as ``vkstat shader
    run`` does, or a sequence of shaders over arrays that stay on the
    device between dispatches (a two-pass reduction, an iterative step).

    Parameters
    ----------
    shader : str or path, or None
        A GLSL compute shader (``.comp``) or SPIR-V (``.spv``) file, or
        GLSL source (text with a newline); None with ``steps``.
    arrays : mapping of str to array_like
        The arrays the shaders run on, by name: for one shader, each
        binding's (by the name its code uses, its block's name or its
        number); for steps, the buffers the steps bind by these names.
        Their dtype is what the shader sees (float16, float32, float64,
        8- to 64-bit integers); they are not changed: the results come
        back as new arrays.
    push, spec, uniform : mapping, optional
        Push constants, specialization constants and uniform block
        members by name (unset push and uniform members are 0).
    groups, global_size : int or sequence of int
        The dispatch in workgroups, or in invocations (divided by the
        local size, rounded up): one of the two.
    define, include, target_env
        Macros (``{"T": "float"}``), #include folders and the Vulkan
        target (``vulkan1.1`` by default).
    steps : sequence of mapping, optional
        Instead of one shader: each step a mapping with ``shader`` (path
        or source), ``bind`` (binding → array name), and optionally
        ``push``, ``spec``, ``uniform``, ``groups`` or ``global_size``,
        ``define``, ``include``, ``target_env`` and ``times`` (dispatches
        in a row).
    times : int
        Runs the steps in order so many times (an iteration of more than
        one dispatch).
    repeat, warmup : int
        Timed runs and untimed ones before them; ``gpu_ms`` is the median.
    reference : callable or mapping, optional
        What the outputs must be: a function called with the arrays and
        the constants (push, spec, uniform) as keywords, returning a dict
        of expected arrays by name; or a dict of those, each an array or
        such a function. Each is compared as
        ``np.testing.assert_allclose(got, want, rtol, atol)``, which raises
        an AssertionError saying how many elements differ and the worst:
        a pytest test is one call.

    Returns
    -------
    ShaderResult
        A dict of every array after the run, by name, with ``device``,
        ``gpu_ms``, ``first_ms``, ``build_ms`` and ``dispatches``.
    """
    if steps is not None:
        if shader is not None:
            raise ValueError("give a shader or steps, not both")
        if any(x is not None for x in (push, spec, uniform, groups, global_size, define, include, target_env)):
            raise ValueError("with steps, give push, spec, uniform, the dispatch and the compile settings per step")
        known = {"shader", "bind", "push", "spec", "uniform", "groups", "global_size", "define", "include", "target_env", "times"}
        reqs = []
        for i, st in enumerate(steps):
            if set(st) - known:
                raise TypeError(f"steps[{i}]: unknown keys {sorted(set(st) - known)}; a step takes {sorted(known)}")
            if "shader" not in st or "bind" not in st:
                raise ValueError(f"steps[{i}]: a step needs a shader and bind")
            reqs.append(_step(st["shader"], st["bind"], st.get("push"), st.get("spec"), st.get("uniform"), st.get("groups"),
                              st.get("global_size"), st.get("define"), st.get("include"), st.get("target_env"), st.get("times", 1)))
    else:
        if shader is None:
            raise ValueError("no shader: give one, or steps")
        reqs = [_step(shader, {k: k for k in arrays}, push, spec, uniform, groups, global_size, define, include, target_env)]
    if int(times) < 1 or int(repeat) < 1 or int(warmup) < 0:
        raise ValueError(f"times={times}, repeat={repeat}, warmup={warmup}: want times and repeat of 1 or more, warmup of 0 or more")
    lent = {str(k): _lend(a, str(k)) for k, a in arrays.items()}
    params = {"steps": reqs, "times": int(times), "repeat": int(repeat), "warmup": int(warmup)}
    got, info, _ = self._run("shader", params, lent)
    result = ShaderResult({k: got[k] for k in lent}, info)
    if reference is not None:
        constants: dict[str, Any] = {}
        for m in (push, spec, uniform):
            constants.update({str(k).split(".")[-1]: v for k, v in (m or {}).items()})
        inputs = {k: v.array for k, v in lent.items()}
        want = reference(**inputs, **constants) if callable(reference) else {
            k: (v(**inputs, **constants) if callable(v) else v) for k, v in reference.items()}
        if not isinstance(want, Mapping):
            raise TypeError(f"the reference returned {type(want).__name__}; want a dict of expected arrays by name")
        for name, w in want.items():
            if name not in result:
                raise KeyError(f"the reference gives {name!r}; the arrays are {sorted(result)}")
            np.testing.assert_allclose(result[name], np.asarray(w).reshape(result[name].shape), rtol=rtol, atol=atol,
                                       err_msg=f"{name} on {result.device}")
    return result
