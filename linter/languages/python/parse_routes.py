"""The HTTP routes a Python module declares, and the handler behind each: what an
`httpGet` probe on a container reaches in the code it runs (links.py).

Flask and FastAPI decorators (`@app.route("/healthz")`, `@app.get("/ready")`,
`@router.get(...)` with the router's literal `prefix`/`url_prefix`), `add_url_rule`,
`add_api_route`, aiohttp's `router.add_get`/`add_route` and `web.get`, Starlette's
`Route(path, endpoint)`, Django's `path("health/", view)`, flask-restx's (and
flask-restplus's) `@ns.route("/ping")` on a Resource class, whose `get` handles it, under
its namespace's path (`Namespace("products")` or `api.namespace(...)`: `/products`, or its
`path=`, or `add_namespace`'s). A handler is named as the code names it (`health`,
`views.health`, `Ping.get`); one that returns a constant answer and does nothing else is
`trivial`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator

from k8slb.code.facts import Loc, Route
from k8slb.core import regex
from k8slb.languages.python.parse_ast import dotted

_DECORATORS = frozenset({"route", "get", "api_route", "head"})
_REGISTRATIONS = {  # method -> (index of the path, index of the handler)
    "add_url_rule": (0, 2),
    "add_api_route": (0, 1),
    "add_get": (0, 1),
    "add_head": (0, 1),
    "add_route": (1, 2),  # aiohttp: add_route(method, path, handler)
}
_ROUTE_FUNCTIONS = {  # qualified name -> (index of the path, index of the handler)
    "starlette.routing.Route": (0, 1),
    "fastapi.routing.APIRoute": (0, 1),
    "aiohttp.web.get": (0, 1),
    "aiohttp.web.route": (1, 2),
    "django.urls.path": (0, 1),
    "django.urls.re_path": (0, 1),
}
_ROUTERS = {"fastapi.APIRouter": "prefix", "fastapi.routing.APIRouter": "prefix"}
_BLUEPRINTS = {"flask.Blueprint": "url_prefix", "flask.blueprints.Blueprint": "url_prefix"}
_Function = ast.FunctionDef | ast.AsyncFunctionDef


# Words one of which a module that declares routes holds (a cheap pre-check).
WEB_WORDS = (b"flask", b"fastapi", b"starlette", b"aiohttp", b"django", b"route")


def collect_routes(
    nodes: Iterable[ast.AST],
    qualified: Callable[[ast.expr], str | None],
    loc: Callable[[ast.AST], Loc],
) -> list[Route]:
    """The routes of a module, from its functions, assignments, calls and classes (`nodes`:
    at least those, in `ast.walk`'s order: the last function of a name is the handler)."""
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    assignments: list[ast.Assign] = []
    calls: list[ast.Call] = []
    classes: list[ast.ClassDef] = []
    for node in nodes:
        if isinstance(node, _Function):
            functions[node.name] = node
        elif isinstance(node, ast.Assign):
            assignments.append(node)
        elif isinstance(node, ast.Call):
            calls.append(node)
        elif isinstance(node, ast.ClassDef):
            classes.append(node)
    prefixes = dict(_prefixes(assignments, qualified))
    prefixes.update(_namespaces(assignments, calls, qualified))
    found: list[Route] = []
    for resource in classes:  # flask-restx: `@ns.route("/ping")` on a Resource class
        get = next((f for f in resource.body if isinstance(f, _Function) and f.name == "get"), None)
        for decorator in resource.decorator_list if get is not None else ():
            path = _decorator_path(decorator)
            if path is not None and get is not None:
                assert isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute)
                prefix = prefixes.get(dotted(decorator.func.value), "")
                handler = f"{resource.name}.get"
                found.append(Route(prefix + path, handler, loc(decorator), _trivial(get)))
    for function in functions.values():
        for decorator in function.decorator_list:
            path = _decorator_path(decorator)
            if path is not None:
                assert isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute)
                prefix = prefixes.get(dotted(decorator.func.value), "")
                found.append(
                    Route(prefix + path, function.name, loc(decorator), _trivial(function))
                )
    for call in calls:
        route = _registration(call, qualified, functions, loc)
        if route is not None:
            found.append(route)
    return found


def _prefixes(
    assignments: list[ast.Assign], qualified: Callable[[ast.expr], str | None]
) -> Iterator[tuple[str, str]]:
    """`router = APIRouter(prefix="/health")` -> ("router", "/health")."""
    for node in assignments:
        if not (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
        ):
            continue
        name = qualified(node.value.func) or ""
        keyword = _ROUTERS.get(name) or _BLUEPRINTS.get(name)
        for given in node.value.keywords if keyword else []:
            if given.arg == keyword and _text(given.value) is not None:
                yield node.targets[0].id, str(_text(given.value)).rstrip("/")


def _namespaces(
    assignments: list[ast.Assign],
    calls: list[ast.Call],
    qualified: Callable[[ast.expr], str | None],
) -> Iterator[tuple[str, str]]:
    """flask-restx's (and flask-restplus's) namespaces and the path each serves under:
    `ns = Namespace("products")` or `ns = api.namespace("products")` is `/products`
    unless its `path=` says, or `api.add_namespace(ns, path="/p")` moves it there."""
    found: dict[str, str] = {}
    for node in assignments:
        value = node.value
        if not (
            len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(value, ast.Call)
            and value.args
            and (
                (qualified(value.func) or "").rsplit(".", 1)[0] in _RESTX
                or (isinstance(value.func, ast.Attribute) and value.func.attr == "namespace")
            )
            and (qualified(value.func) or "namespace").endswith(("Namespace", "namespace"))
        ):
            continue
        name = _text(value.args[0])
        path = next((_text(k.value) for k in value.keywords if k.arg == "path"), None)
        if name is not None or path is not None:
            found[node.targets[0].id] = (path or f"/{name}").rstrip("/")
    for call in calls:
        if not (
            isinstance(call.func, ast.Attribute)
            and call.func.attr == "add_namespace"
            and call.args
            and isinstance(call.args[0], ast.Name)
        ):
            continue
        path = next((_text(k.value) for k in call.keywords if k.arg == "path"), None)
        if path is None and len(call.args) > 1:
            path = _text(call.args[1])
        if path is not None:
            found[call.args[0].id] = path.rstrip("/")
    return iter(found.items())


# the packages whose Namespace class serves a Resource's routes under its path
_RESTX = frozenset({"flask_restx", "flask_restplus", "flask_restx.namespace"})


def _decorator_path(decorator: ast.expr) -> str | None:
    if not (
        isinstance(decorator, ast.Call)
        and isinstance(decorator.func, ast.Attribute)
        and decorator.func.attr in _DECORATORS
        and decorator.args
    ):
        return None
    path = _text(decorator.args[0])
    return path if path is not None and path.startswith("/") else None


def _registration(
    call: ast.Call,
    qualified: Callable[[ast.expr], str | None],
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef],
    loc: Callable[[ast.AST], Loc],
) -> Route | None:
    name = qualified(call.func)
    if name in _ROUTE_FUNCTIONS:
        path_at, handler_at = _ROUTE_FUNCTIONS[name]
    elif isinstance(call.func, ast.Attribute) and call.func.attr in _REGISTRATIONS:
        path_at, handler_at = _REGISTRATIONS[call.func.attr]
    else:
        return None
    path = _text(call.args[path_at]) if len(call.args) > path_at else None
    handler = call.args[handler_at] if len(call.args) > handler_at else None
    for keyword in call.keywords:
        if keyword.arg in ("view_func", "endpoint", "handler", "view"):
            handler = keyword.value
    if path is None or handler is None or not dotted(handler):
        return None
    if name in ("django.urls.path", "django.urls.re_path"):
        path = "/" + path.lstrip("^").rstrip("$").lstrip("/")
    if not path.startswith("/"):
        return None
    target = functions.get(handler.id) if isinstance(handler, ast.Name) else None
    trivial = target is not None and _trivial(target)
    return Route(path, dotted(handler), loc(call), trivial, read=target is not None)


def _trivial(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A handler that checks nothing: its body (past a docstring) is one `return` of a
    constant answer (`"ok"`, `{"status": "ok"}`, `("ok", 200)`, `Response("ok")`,
    `jsonify(status="ok")`), or `pass`."""
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    if len(body) != 1:
        return False
    statement = body[0]
    if isinstance(statement, ast.Pass):
        return True
    return isinstance(statement, ast.Return) and (
        statement.value is None or _constant_answer(statement.value)
    )


def _constant_answer(value: ast.expr) -> bool:
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.Dict):
        return all(k is None or _constant_answer(k) for k in value.keys) and all(
            _constant_answer(v) for v in value.values
        )
    if isinstance(value, ast.Tuple | ast.List):
        return all(_constant_answer(e) for e in value.elts)
    if isinstance(value, ast.Call):  # Response("ok"), jsonify(status="ok")
        return (
            _ANSWER.match(dotted(value.func).rsplit(".", 1)[-1]) is not None
            and all(_constant_answer(a) for a in value.args)
            and all(_constant_answer(k.value) for k in value.keywords)
        )
    # HTTPStatus.OK, status.HTTP_200_OK: a constant's name, not shared state (`state.ready`)
    return isinstance(value, ast.Attribute) and value.attr.isupper()


# What builds an answer, not a check of anything: a call of another name (`check_db()`)
# may fail or answer otherwise.
_ANSWER = regex.compile(r"^(\w*Response|\w*_response|jsonify|dict|str)$")


def _text(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
