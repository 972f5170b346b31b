# Reads Python entry points without running them: compiles each (nothing is
# written, nothing imported from it), resolves its top-level imports with
# importlib's finders, and collects the command-line options its parsers
# define (argparse, click, absl, Hydra, OmegaConf), following the modules
# of the repository it imports. Input: JSON {"root": ..., "scripts": [...]}
# on stdin; output: one JSON object per script on stdout.
import sys

# python -c puts the working directory (the repository) first on the path:
# drop it before importing anything, so that a repository module named like
# a standard one (json.py, ast.py) is never run in its place.
if sys.path and sys.path[0] in ("", "."):
    del sys.path[0]

import ast, importlib.util, json, os

req = json.load(sys.stdin)
root = req["root"]
MAX_FILES = 64


def local_file(name, base):
    """The repository file a module name resolves to, or None."""
    parts = name.split(".")
    for d in (base, root):
        p = os.path.join(d, *parts)
        for cand in (p + ".py", os.path.join(p, "__init__.py")):
            if os.path.isfile(cand) and os.path.realpath(cand).startswith(os.path.realpath(root) + os.sep):
                return cand
    return None


def strs(nodes):
    return [n.value for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def kw(call, name):
    for k in call.keywords:
        if k.arg == name and isinstance(k.value, ast.Constant):
            return k.value.value
    return None


def callee(call):
    f = call.func
    if isinstance(f, ast.Attribute):
        base = f.value.id if isinstance(f.value, ast.Name) else (f.value.attr if isinstance(f.value, ast.Attribute) else "")
        return base, f.attr
    if isinstance(f, ast.Name):
        return "", f.id
    return "", ""


def scan(path, out, seen):
    if path in seen or len(seen) >= MAX_FILES:
        return
    seen.add(path)
    with open(path, "rb") as f:
        src = f.read()
    tree = ast.parse(src, path)
    base = os.path.dirname(path)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else ([node.module] if node.module and node.level == 0 else [])
            if isinstance(node, ast.ImportFrom) and node.level > 0:
                d = base
                for _ in range(node.level - 1):
                    d = os.path.dirname(d)
                mod = node.module or ""
                cands = [mod + "." + a.name if mod else a.name for a in node.names] + ([mod] if mod else [])
                for c in cands:
                    lf = local_file(c, d)
                    if lf:
                        scan(lf, out, seen)
                continue
            for n in names:
                out["uses"].add(n.split(".")[0])
                lf = local_file(n, base)
                if lf:
                    scan(lf, out, seen)
                if isinstance(node, ast.ImportFrom):
                    for a in node.names:
                        lf = local_file(n + "." + a.name, base)
                        if lf:
                            scan(lf, out, seen)
        if isinstance(node, ast.ClassDef) and replaces(node):
            out["replacing"].add(node.name)
        if isinstance(node, ast.Call):
            obj, name = callee(node)
            if kw(node, "add_help") is False:
                # A parser that does not answer --help may take it for
                # anything, or ignore it and go on to train.
                out["no_help"] = True
            if name == "add_argument":
                opts = [s for s in strs(node.args) if s.startswith("-")]
                out["options"] += opts
                if opts:
                    out["parsers"].add("argparse")
                # An option given twice keeps only its last value, unless
                # its action gathers them (or is a class rlxp cannot read).
                action = next((k.value for k in node.keywords if k.arg == "action"), None)
                if action is None or isinstance(action, ast.Constant) and action.value in ("store", "store_const", "store_true", "store_false"):
                    out["single"] += opts
                elif isinstance(action, ast.Name):
                    out["custom"].append((opts, action.id))
            elif obj == "click" and name == "option" or name == "option" and any(s.startswith("--") for s in strs(node.args)):
                for s in strs(node.args):
                    for part in s.split("/"):
                        part = part.strip()
                        if part.startswith("-"):
                            out["options"].append(part)
                out["parsers"].add("click")
            elif name.startswith("DEFINE_") and node.args:
                flag = strs(node.args[:1])
                if flag:
                    out["options"].append("--" + flag[0])
                    if name == "DEFINE_bool" or name == "DEFINE_boolean":
                        out["options"].append("--no" + flag[0])
                    out["parsers"].add("absl")
            elif name == "main" and obj == "hydra":
                out["parsers"].add("hydra")
                cp, cn = kw(node, "config_path"), kw(node, "config_name")
                if cp is not None:
                    out["hydra"] = {"config_path": os.path.normpath(os.path.join(base, cp)), "config_name": cn or ""}
            elif obj == "OmegaConf" and name in ("from_cli", "from_dotlist"):
                out["parsers"].add("omegaconf")
            elif obj == "tyro" and name == "cli":
                out["parsers"].add("tyro")
            elif name in ("HfArgumentParser", "TrlParser", "parse_args_into_dataclasses"):
                # Options are the fields of dataclasses: only --help lists them all.
                out["parsers"].add("HfArgumentParser")


def replaces(cls):
    """An argparse Action class whose __call__ sets its dest without
    reading what an earlier occurrence stored there."""
    for f in cls.body:
        if isinstance(f, ast.FunctionDef) and f.name == "__call__":
            sets = reads = False
            for n in ast.walk(f):
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
                    sets |= n.func.id == "setattr"
                    reads |= n.func.id == "getattr"
            return sets and not reads
    return False


def top_imports(tree):
    mods = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            mods += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            mods.append(node.module)
    return mods


results = []
sys.path[:0] = [root]
for script in req["scripts"]:
    r = {"script": script, "compiles": True, "error": "", "missing": [], "options": [], "parsers": set(), "hydra": None, "uses": set(), "no_help": False, "single": [], "custom": [], "replacing": set()}
    try:
        with open(script, "rb") as f:
            src = f.read()
        tree = compile(src, script, "exec", ast.PyCF_ONLY_AST)
        compile(tree, script, "exec")
    except SyntaxError as e:
        r["compiles"], r["error"] = False, "%s:%s: %s" % (os.path.relpath(script, root), e.lineno, e.msg)
        results.append(r)
        continue
    except OSError as e:
        r["compiles"], r["error"] = False, str(e)
        results.append(r)
        continue
    sys.path[:0] = [os.path.dirname(script)]
    for m in top_imports(tree):
        top = m.split(".")[0]
        try:
            if importlib.util.find_spec(top) is None:
                r["missing"].append(m)
        except (ImportError, ValueError) as e:
            r["missing"].append(m)
    del sys.path[0]
    try:
        scan(script, r, set())
    except (SyntaxError, OSError) as e:
        r["error"] = "reading the modules it imports: %s" % e
    results.append(r)
for r in results:
    replacing = r.pop("replacing")
    for opts, cls in r.pop("custom"):
        if cls in replacing:
            r["single"] += opts
    for k in ("parsers", "uses", "options", "single"):
        r[k] = sorted(set(r[k]))
json.dump(results, sys.stdout)
