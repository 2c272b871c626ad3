"""Options and arguments declared without Typer, and the quick way a plain command line reaches them.

Importing Typer (and the click it carries) costs about 40 ms, more than the floor of a whole Python
process, and ``trail list`` runs dozens of times a day. So a command declares its parameters with
:class:`Option` and :class:`Argument`, which take the same arguments as ``typer.Option`` and
``typer.Argument`` and only remember them, and ends with :class:`Exit`, a :class:`SystemExit`.

Two ways then lead to the same call:

- :func:`typer_function` hands Typer a copy of the function whose annotations hold the real
  ``typer.Option``/``typer.Argument``: help, usage errors, ``--help`` and completions are Typer's.
- :func:`parse` reads a command line that needs none of that (known options, values that convert,
  no ``--help``) into the keyword arguments Typer would pass, or answers ``None``, and the command
  line then goes to Typer, which says what is wrong exactly as before. Only what Typer does
  identically is read here: ``--name value``, ``--name=value``, ``-n value``, flags, ``--`` and
  positional arguments; a setting it does not know (an environment variable, a callback, a range
  that clamps) makes the command Typer's alone.

A parameter that is an argument of a question (``questions.py``) is declared with :func:`asked`, which
makes its option from the question's declaration (name, help, bounds), and takes its default from
:meth:`~hermes_trail.questions.Param.cli_default`: the command line and the MCP tools then say and bound it
alike, and ``tests/test_front_door.py`` checks that every such argument is an option of its command.
"""

from __future__ import annotations

import errno
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Union, get_args, get_origin

if TYPE_CHECKING:
    from hermes_trail.questions import Question

# Settings that change nothing about how a value is read from the command line.
_DESCRIPTIVE = frozenset({"help", "show_default", "metavar", "hidden", "rich_help_panel"})
_RANGE = frozenset({"min", "max"})
_SCALARS = (str, int, float, Path)


class Option:
    """``typer.Option``'s arguments, kept until Typer (or :func:`parse`) needs them."""

    __slots__ = ("decls", "settings")

    def __init__(self, *decls: str, **settings: Any) -> None:
        self.decls = decls
        self.settings = settings

    def to_typer(self) -> Any:
        import typer

        return typer.Option(*self.decls, **self.settings)


class Argument:
    """``typer.Argument``'s arguments, kept until Typer (or :func:`parse`) needs them."""

    __slots__ = ("decls", "settings")

    def __init__(self, *decls: str, **settings: Any) -> None:
        self.decls = decls
        self.settings = settings

    def to_typer(self) -> Any:
        import typer

        return typer.Argument(*self.decls, **self.settings)


def asked(question: Question, name: str, *short: str) -> Option | Argument:
    """The command line's declaration of the question's argument ``name``: a positional argument for a
    required one, else ``--name`` (its underscores as dashes), with the help and a count's bounds the
    question gives the command line. ``short`` adds short names (``-n``): the command line's own."""
    param = question.param(name)
    if name in question.required:
        return Argument(help=param.cli_help)
    settings: dict[str, Any] = {"help": param.cli_help}
    least, most = param.cli_bounds
    if least is not None:
        settings["min"] = least
    if most is not None:
        settings["max"] = most
    return Option("--" + name.replace("_", "-"), *short, **settings)


class Exit(SystemExit):
    """End a command with an exit code (``typer.Exit``'s role): Typer lets a ``SystemExit`` through to
    :func:`hermes_trail.cli.commands.run`, and so does the quick path."""

    def __init__(self, code: int = 0) -> None:
        super().__init__(code)
        self.exit_code = code


def _hints(func: Callable[..., Any]) -> dict[str, Any]:
    import typing

    return typing.get_type_hints(func, include_extras=True)


def _declared(annotation: Any) -> tuple[Any, Any]:
    """``(type, declaration)`` of an ``Annotated[type, Option(...)]``; ``(annotation, None)`` otherwise."""
    from typing import Annotated

    if get_origin(annotation) is Annotated:
        base, *extras = get_args(annotation)
        for extra in extras:
            if isinstance(extra, Option | Argument):
                return base, extra
    return annotation, None


def typer_function(func: Callable[..., Any], call: Callable[..., Any] | None = None) -> Callable[..., Any]:
    """``func`` as Typer reads it: the same name, docstring and defaults, each :class:`Option` or
    :class:`Argument` in its annotations turned into Typer's own. ``call`` runs instead of ``func`` (tests
    compare what each way passes)."""
    import functools
    import inspect
    from typing import Annotated

    hints = _hints(func)
    signature = inspect.signature(func)
    target = call or func

    @functools.wraps(func)
    def wrapper(**kwargs: Any) -> Any:
        return target(**kwargs)

    params = []
    annotations: dict[str, Any] = {}
    for param in signature.parameters.values():
        annotation = hints.get(param.name, param.annotation)
        base, declared = _declared(annotation)
        if declared is not None:
            annotation = Annotated[base, declared.to_typer()]
        annotations[param.name] = annotation
        params.append(param.replace(annotation=annotation))
    if "return" in hints:
        annotations["return"] = hints["return"]
    wrapper.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = annotations
    return wrapper


class _Param(NamedTuple):
    """One parameter as :func:`parse` reads it."""

    name: str
    kind: type  # str, int, float, Path or bool
    many: bool  # a repeatable option: a list, or None when never given
    default: Any
    low: float | None
    high: float | None
    argument: bool
    required: bool


class _Spec(NamedTuple):
    params: list[_Param]
    flags: dict[str, tuple[_Param, Any]]  # option name -> (parameter, the value a flag name sets)


_SPECS: dict[Callable[..., Any], _Spec | None] = {}


def _kind(base: Any) -> tuple[type, bool] | None:
    """``(scalar type, repeatable)`` of a parameter's type; ``None`` for one :func:`parse` leaves alone."""
    origin = get_origin(base)
    if origin in (Union, types.UnionType):
        inner = [a for a in get_args(base) if a is not type(None)]
        if len(inner) != 1 or len(get_args(base)) != 2:
            return None
        base, origin = inner[0], get_origin(inner[0])
    if origin is list:
        (item,) = get_args(base) or (None,)
        return (item, True) if item in (str, Path) else None
    if base is bool or base in _SCALARS:
        return base, False
    return None


def _spec(func: Callable[..., Any]) -> _Spec | None:
    """How :func:`parse` reads ``func``'s command line; ``None`` when any parameter needs Typer."""
    if func not in _SPECS:
        _SPECS[func] = _read_spec(func)
    return _SPECS[func]


_NO_DEFAULT = object()
_STARRED = 0x04 | 0x08  # a code object's CO_VARARGS | CO_VARKEYWORDS: *args or **kwargs, Typer's alone


def _parameters(func: Callable[..., Any]) -> list[tuple[str, Any]]:
    """``func``'s parameters in order, each with its default (:data:`_NO_DEFAULT` for none), read off its
    code object: what ``inspect.signature`` says of a plain function, without importing ``inspect``
    (about 7 ms of every ``trail`` start)."""
    code = func.__code__
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    positional = names[: code.co_argcount]
    defaults = func.__defaults__ or ()
    given = dict(zip(positional[len(positional) - len(defaults) :], defaults, strict=True))
    given.update(func.__kwdefaults__ or {})
    return [(name, given.get(name, _NO_DEFAULT)) for name in names]


def _read_spec(func: Callable[..., Any]) -> _Spec | None:
    if (
        not isinstance(func, types.FunctionType)
        or hasattr(func, "__wrapped__")
        or func.__code__.co_flags & _STARRED
    ):
        return None
    spec = _Spec([], {})
    hints = _hints(func)
    for name, default in _parameters(func):
        base, declared = _declared(hints.get(name))
        kind = _kind(base)
        if declared is None or kind is None:
            return None
        settings = declared.settings
        has_default = default is not _NO_DEFAULT
        if set(settings) - _DESCRIPTIVE - _RANGE or "default" in settings:
            return None
        scalar, many = kind
        argument = isinstance(declared, Argument)
        if argument and (scalar is bool or declared.decls):
            return None
        if argument and any(p.argument and p.many for p in spec.params):
            return None  # an argument after one that takes every word left: Typer's to place
        if not argument and not has_default:
            return None
        item = _Param(
            name=name,
            kind=scalar,
            many=many,
            default=default if has_default else None,
            low=settings.get("min"),
            high=settings.get("max"),
            argument=argument,
            required=not has_default,
        )
        spec.params.append(item)
        if argument:
            continue
        lone = not any("/" in d for d in declared.decls)
        if scalar is bool and lone and (not declared.decls or default is not False):
            # Typer makes --name/--no-name of an undeclared flag, and click has a lone flag whose default
            # is true set false: neither is read here.
            return None
        for decl in declared.decls or ("--" + name.replace("_", "-"),):
            on, slash, off = (part.strip() for part in decl.partition("/"))
            if slash and (scalar is not bool or not on or not off):
                return None
            spec.flags[on] = (item, True)
            if off:
                spec.flags[off] = (item, False)
    return spec


# A word excluded from a search (``-docker``, ``-v1.2``, ``-src/old``): a letter after the dash.
_EXCLUDED_WORD = r"-[^\W\d_][\w.:/-]+"


def _is_dashed_text(arg: str) -> bool:
    """An argument that begins with a dash and holds a space: text quoted whole, never an option."""
    return arg[:1] == "-" and any(c.isspace() for c in arg)


def dashed_text(args: list[str]) -> bool:
    """Whether an argument is text quoted whole that begins with a dash (``trail fix "-bash: pip: command
    not found"``, ``trail search "-docker redis"``)."""
    return any(map(_is_dashed_text, args))


def _options_apart(spec: _Spec, args: list[str]) -> tuple[list[str], list[str]]:
    """``args`` as the options of ``spec``, each with its value, and the other arguments, in order."""
    options: list[str] = []
    others: list[str] = []
    rest = list(args)
    while rest:
        token = rest.pop(0)
        name = token.partition("=")[0]
        if name in spec.flags:
            options.append(token)
            if spec.flags[name][0].kind is not bool and "=" not in token and rest:
                options.append(rest.pop(0))
        else:
            others.append(token)
    return options, others


def text_after_options(func: Callable[..., Any], args: list[str]) -> list[str]:
    """``args`` of ``func``'s command line with its options first, then ``--`` and its words in the order
    typed, when one of them is text that begins with a dash (:func:`dashed_text`): the command line reads
    any argument that begins with a dash as options, so an error pasted whole as ``-bash: pip: command
    not found`` was refused as the unknown option ``-b``. ``args`` as they are when they already hold
    ``--``, or another argument begins with a dash and is no option of ``func`` (for Typer to name, or
    for :func:`unquoted_exclusion`)."""
    spec = _spec(func)
    if spec is None or "--" in args:
        return args
    options, words = _options_apart(spec, args)
    if any(w[:1] == "-" and w != "-" and not _is_dashed_text(w) for w in words):
        return args
    return [*options, "--", *words]


def unquoted_exclusion(func: Callable[..., Any], args: list[str]) -> tuple[str, list[str], list[str]] | None:
    """A ``-word`` among the words of ``func``'s command line that is none of its options, which the
    command line would read as options (``-d``, ``-o``, ...): ``(the first such word, the question's
    words, the options with their values)``; ``None`` when there is none, when the question follows
    ``--`` (typed as meant), or when another unknown option is there (for Typer to name)."""
    import re  # only here: the quick path of every other command line does without it

    spec = _spec(func)
    if spec is None or "--" in args:
        return None
    options, words = _options_apart(spec, args)
    found: str | None = None
    for word in words:
        if re.fullmatch(_EXCLUDED_WORD, word):
            found = found or word
        elif word.startswith("-") and word != "-":
            return None
    return (found, words, options) if found is not None else None


def _convert(param: _Param, text: str) -> tuple[bool, Any]:
    """``(True, value)`` for a value Typer would take as it is, ``(False, None)`` for one it refuses
    (or might: a value out of range)."""
    try:
        value: Any = param.kind(text)
    except ValueError:
        return False, None
    if param.low is not None and not value >= param.low:
        return False, None
    if param.high is not None and not value <= param.high:
        return False, None
    return True, value


def parse(func: Callable[..., Any], argv: list[str]) -> dict[str, Any] | None:
    """The keyword arguments Typer would call ``func`` with for ``argv``, or ``None`` when Typer must
    read it (help, a usage error, anything this reader does not know)."""
    spec = _spec(func)
    if spec is None:
        return None
    given: dict[str, Any] = {}
    positional: list[str] = []
    rest = list(argv)
    only_arguments = False
    while rest:
        token = rest.pop(0)
        if only_arguments or token == "-" or not token.startswith("-"):
            positional.append(token)
            continue
        if token == "--":
            only_arguments = True
            continue
        if token.startswith("--"):
            name, equals, attached = token.partition("=")
        elif len(token) == 2:
            name, equals, attached = token, "", ""
        else:
            return None  # -n5, -ab: click reads these its own way
        found = spec.flags.get(name)
        if found is None:
            return None  # --help, an unknown option: Typer's to answer
        param, flag_value = found
        if param.kind is bool:
            if equals:
                return None
            given[param.name] = flag_value
            continue
        if equals:
            text = attached
        elif rest:
            text = rest.pop(0)
        else:
            return None
        ok, value = _convert(param, text)
        if not ok:
            return None
        if param.many:
            given.setdefault(param.name, []).append(value)
        else:
            given[param.name] = value
    kwargs: dict[str, Any] = {}
    for param in spec.params:
        if not param.argument:
            kwargs[param.name] = given.get(param.name, param.default)
            continue
        if positional and param.many:  # every word left (``trail search connection refused``)
            words = [_convert(param, text) for text in positional]
            if not all(ok for ok, _ in words):
                return None
            kwargs[param.name] = [value for _, value in words]
            positional = []
        elif positional:
            ok, value = _convert(param, positional.pop(0))
            if not ok:
                return None
            kwargs[param.name] = value
        elif param.required:
            return None
        else:
            kwargs[param.name] = param.default
    if positional:
        return None  # extra arguments: Typer's usage error
    return kwargs


def invoke(func: Callable[..., Any], kwargs: dict[str, Any]) -> int:
    """Call a command as Typer's ``main`` would in a process, and its exit code: ``SystemExit`` gives
    its code, Ctrl-C 130, end of input "Aborted!" and 1, a closed standard output 1."""
    try:
        func(**kwargs)
    except SystemExit as done:
        code = done.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except KeyboardInterrupt:
        return 130
    except EOFError:
        sys.stderr.write("\nAborted!\n")
        return 1
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        sys.stdout = _Pacified(sys.stdout)
        sys.stderr = _Pacified(sys.stderr)
        return 1
    return 0


class _Pacified:
    """A stream whose flush ignores a closed pipe, as click leaves standard output after one."""

    def __init__(self, wrapped: Any) -> None:
        self._wrapped = wrapped

    def __getattr__(self, name: str) -> Any:
        return getattr(self._wrapped, name)

    def flush(self) -> None:
        try:
            self._wrapped.flush()
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise
