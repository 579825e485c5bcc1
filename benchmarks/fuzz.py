"""A fuzzer for gradcli: grammar-random statements with random flags, and byte
mutations of valid ones, through ``gradcli eval`` (arguments and ``eval -``)
and the piped REPL.

    python benchmarks/fuzz.py --statements 20000 --seed 1 [--json out.json]

What it records, per case and in all:

- internal errors: ``internal error`` or a traceback in any output, or an
  exception that escaped gradcli's own top-level handler;
- hangs: a case that took more than ``HANG_S`` (10 s);
- memory: a case whose peak resident memory passed ``MEMORY_KB`` (1 GB);
- exit statuses outside 0-3 (130, Ctrl-C, never happens here);
- lost lines: every case ends with the statement ``SENTINEL``; where its
  value is missing from standard output although the same flags print it
  when it runs alone, a failure earlier in the case took it with it.

Cases run in a worker process (gradcli's ``cli.main.run`` in process, its
standard streams captured: about a hundred times faster than a process a
case) under an address-space limit (``LIMIT_KB``, as ``ulimit -v``). The
parent watches each case's wall time and kills a worker stuck in C code that
no signal interrupts (a huge exact power), recording the case as a hang;
``SUBPROCESS_EVERY``-th case also runs as a real ``gradcli`` process, which
checks the console script's exit status and memory the same way.

The generator draws from the registry's built-ins, the operators, numbers
with extremes (1e300, 4.9e-324, 1e-320), names, definitions, ``diff`` and
``grad``, arrays and the constructors. ``Config`` switches families off, for a
CI run that must pass while known failures in other areas are open.
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import io
import json
import os
import random
import re
import select
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

HANG_S = 10.0
"""A case slower than this is a hang."""
KILL_S = 25.0
"""The parent kills a worker whose case has run this long (past the worker's own alarm)."""
MEMORY_KB = 1 << 20
"""A case whose peak resident memory passes this (1 GiB) is recorded."""
LIMIT_KB = 3_000_000
"""The worker's address-space limit, as ``ulimit -v 3000000``."""
SUBPROCESS_EVERY = 100
"""One case in this many also runs as a real gradcli process."""
SENTINEL = "424242.5"
"""The last statement of every case: its value must be printed."""

NAMES = ["x", "y", "z", "t", "a", "b", "k", "u", "v", "w"]
UNKNOWN = ["q", "foo", "ans", "pi", "e", "inf", "nan"]
NUMBERS = ["0", "1", "2", "3", "0.5", "2.5", "10", "1e-3", "7", "30", ".5", "2."]
EXTREMES = ["1e300", "4.9e-324", "1e-320", "1e308", "1e-20", "5000", "1e20", "2.5e-8",
            "1e-300", "1.7976931348623157e308", "123456789012345678901234567890", "1e-8"]
OPERATORS = ["+", "-", "*", "/", "^", "**", "@"]
FORMATS = ["plain", "json", "csv", "table", "latex"]
METHODS = ["auto", "taylor", "backprop"]
COMMANDS = [":d", ":d 2", ":check", ":vars", ":funcs", ":help", ":clear", ":curve"]


@dataclasses.dataclass
class Config:
    """Which families of input the generator draws."""

    extremes: bool = True  # 1e300, 4.9e-324, ... as numbers and exponents
    big_orders: bool = True  # --order / diff orders up to 150
    big_arrays: bool = True  # zeros(1e8, 0), linspace(0, 1, 1e6)
    formula: bool = True  # --formula
    backprop: bool = True  # --method backprop
    mutations: float = 0.15  # share of cases that are byte mutations
    repl_commands: bool = True  # :d, :check ... in REPL cases


@dataclasses.dataclass
class Case:
    mode: str  # "args", "stdin" or "repl"
    args: list[str]  # after the program's name
    stdin: bytes
    statements: int

    def reproducer(self) -> str:
        line = shlex.join(["gradcli", *self.args])
        if self.mode == "args":
            return line
        return f"printf %s {shlex.quote(self.stdin.decode('utf-8', 'backslashreplace'))} | {line}"


class Generator:
    """Random statements of gradcli's language, and flags for them."""

    def __init__(self, rng: random.Random, config: Config) -> None:
        from gradcli.core.registry import REGISTRY

        self.rng = rng
        self.config = config
        self.builtins = [(name, b.min_args, b.max_args, b.kind) for name, b in REGISTRY.items()]
        self.functions: list[tuple[str, int]] = []

    def number(self) -> str:
        rng = self.rng
        if self.config.extremes and rng.random() < 0.15:
            return rng.choice(EXTREMES)
        if rng.random() < 0.2:
            return f"{rng.uniform(-5, 5):.{rng.randint(1, 6)}g}".lstrip("-")
        return rng.choice(NUMBERS)

    def name(self) -> str:
        return self.rng.choice(UNKNOWN) if self.rng.random() < 0.08 else \
            self.rng.choice(NAMES[:5])

    def order(self) -> str:
        top = 150 if self.config.big_orders and self.rng.random() < 0.05 else 5
        return str(self.rng.randint(0, top))

    def expr(self, depth: int = 0) -> str:
        rng = self.rng
        if depth > 3 or rng.random() < 0.25 + 0.15 * depth:
            return self.number() if rng.random() < 0.4 else self.name()
        choice = rng.random()
        if choice < 0.30:
            op = rng.choice(OPERATORS if rng.random() < 0.1 else OPERATORS[:6])
            right = self.number() if op in ("^", "**") and rng.random() < 0.5 else \
                self.expr(depth + 1)
            return f"{self.expr(depth + 1)} {op} {right}"
        if choice < 0.55:
            return self.call(depth)
        if choice < 0.62:
            return f"-{self.expr(depth + 1)}"
        if choice < 0.70:
            return f"({self.expr(depth + 1)})"
        if choice < 0.78:
            n = rng.randint(0, 4)
            return "[" + ", ".join(self.expr(depth + 2) for _ in range(n)) + "]"
        if choice < 0.86:
            var = self.name()
            args = [self.expr(depth + 1), var]
            if rng.random() < 0.6:
                args.append(self.order())
                if rng.random() < 0.4:
                    args.append(self.number())
            return f"diff({', '.join(args)})"
        if choice < 0.90:
            extra = [self.name() for _ in range(rng.randint(0, 2))]
            return f"grad({', '.join([self.expr(depth + 1), *extra])})"
        if choice < 0.94 and self.functions:
            fname, arity = rng.choice(self.functions)
            return f"{fname}({', '.join(self.expr(depth + 1) for _ in range(arity))})"
        if choice < 0.97:
            return f"{rng.choice(['2', '3', '0.5'])}{self.name()}"  # an implicit product
        return f"{self.name()}[{rng.choice(['0', '1', '-1', '0:2', ':'])}]"

    def call(self, depth: int) -> str:
        rng = self.rng
        name, low, high, kind = rng.choice(self.builtins)
        if kind == "constructor":
            return self.constructor(name)
        n = rng.randint(low, high if high is not None else low + 2)
        if rng.random() < 0.03:
            n = rng.randint(0, 4)  # the wrong number, now and then
        args = [self.expr(depth + 1) for _ in range(n)]
        if kind == "reduction" and n == 2:
            args[1] = rng.choice(["0", "1", "-1", "2"])
        return f"{name}({', '.join(args)})"

    def constructor(self, name: str) -> str:
        rng = self.rng
        big = self.config.big_arrays and rng.random() < 0.1
        size = rng.choice(["1e8", "1e7", "1e20", "0", "1e6"]) if big else \
            rng.choice(["0", "1", "2", "3", "5"])
        if name == "linspace":
            return f"linspace({self.number()}, {self.number()}, {size})"
        if name == "arange":
            return f"arange({size})"
        dims = [size, *(rng.choice(["0", "1", "2", "3"] + (["1e8"] if big else []))
                        for _ in range(rng.randint(0, 2)))]
        return f"{name}({', '.join(dims)})"

    def statement(self) -> str:
        rng = self.rng
        choice = rng.random()
        if choice < 0.15:
            return f"{rng.choice(NAMES)} = {self.expr()}"
        if choice < 0.25:
            fname = rng.choice(["f", "g", "h"])
            params = rng.sample(NAMES[:4], rng.randint(1, 2))
            self.functions.append((fname, len(params)))
            return f"{fname}({', '.join(params)}) = {self.expr()}"
        return self.expr()

    def flags(self) -> list[str]:
        rng = self.rng
        out: list[str] = []
        if rng.random() < 0.35:
            out += ["--order", self.order()]
        if rng.random() < 0.1:
            out += ["--series", str(rng.randint(0, 12))]
        if rng.random() < 0.12:
            out.append("--check")
        if rng.random() < 0.1:
            out.append("--grad")
        if self.config.formula and rng.random() < 0.15:
            out.append("--formula")
        if rng.random() < 0.15:
            out += ["--wrt", rng.choice(NAMES[:4])]
        for _ in range(rng.choices([0, 1, 2], [0.4, 0.45, 0.15])[0]):
            value = rng.choice([self.number, lambda: "linspace(0, 1, 5)", lambda: "0:1:0.25",
                                lambda: f"[{self.number()}, {self.number()}]", self.expr])()
            out += ["--at", f"{rng.choice(NAMES[:4])}={value}"]
        if rng.random() < 0.5:
            out += ["--format", rng.choice(FORMATS)]
        if rng.random() < 0.2:
            methods = METHODS if self.config.backprop else METHODS[:2]
            out += ["--method", rng.choice(methods)]
        return out

    def mutate(self, text: str) -> bytes:
        """``text`` with a few random byte edits: flips, insertions (control
        characters, brackets, UTF-8 pieces), deletions and repeats."""
        rng = self.rng
        data = bytearray(text.encode())
        for _ in range(rng.randint(1, 4)):
            at = rng.randint(0, len(data))
            kind = rng.random()
            if kind < 0.25 and data:
                data[min(at, len(data) - 1)] = rng.randint(1, 255)
            elif kind < 0.5:
                piece = rng.choice([b"(", b")", b"[", b"]", b",", b"\x1b[2J", b"\x00", b"\t",
                                    b"\xe2\x80\xae", b"\xff", b"'", b'"', b"#", b";", b"\n",
                                    b"e", b"9" * rng.randint(1, 40), b"^", b"**", b":"])
                data[at:at] = piece
            elif kind < 0.75 and data:
                del data[at:at + rng.randint(1, 3)]
            else:
                chunk = data[at:at + rng.randint(1, 8)]
                data[at:at] = chunk * rng.randint(1, 3)
        return bytes(data)

    def case(self) -> Case:
        rng = self.rng
        self.functions = []
        n = rng.choices([1, 2, 3, 4], [0.4, 0.3, 0.2, 0.1])[0]
        statements = [self.statement() for _ in range(n)]
        mode = rng.choice(["args", "args", "stdin", "repl"])
        if rng.random() < self.config.mutations:
            mutated = [self.mutate(s) for s in statements]
        else:
            mutated = [s.encode() for s in statements]
        if mode == "repl":
            lines = []
            for s in mutated:
                if self.config.repl_commands and rng.random() < 0.2:
                    s = rng.choice(COMMANDS).encode() + b" " + s
                lines.append(s)
            stdin = b"\n".join([*lines, SENTINEL.encode()]) + b"\n"
            return Case("repl", ["repl"], stdin, n)
        flags = self.flags()
        if mode == "stdin":
            stdin = b"\n".join([*mutated, SENTINEL.encode()]) + b"\n"
            return Case("stdin", ["eval", *flags, "-"], stdin, n)
        words = [m.replace(b"\x00", b"").decode("utf-8", "surrogateescape") for m in mutated]
        return Case("args", ["eval", *flags, "--", *words, SENTINEL], b"", n)


def cases(seed: int, statements: int, config: Config) -> Iterator[Case]:
    """Cases of ``statements`` generated statements in all, from ``seed``."""
    gen = Generator(random.Random(seed), config)
    done = 0
    while done < statements:
        case = gen.case()
        done += case.statements
        yield case


# ---------------------------------------------------------------------------
# The worker: cases in process


class _Hang(BaseException):
    """Raised by the alarm: not an Exception, so gradcli's handlers let it pass."""


INTERNAL = re.compile(r"internal error|Traceback \(most recent call last\)")


def _peak_reset() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")  # resets VmHWM, the peak resident size
    except OSError:
        pass


def _peak_kb() -> int:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def run_in_process(args: list[str], stdin: bytes) -> dict[str, Any]:
    """One gradcli command line through ``cli.main.run``, its streams captured."""
    import signal

    from gradcli.cli import main

    saved = sys.stdin, sys.stdout, sys.stderr
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace")
    # as gradcli reads a real descriptor: what does not decode is U+FFFD
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8", errors="replace")
    sys.stdout, sys.stderr = out, err

    def alarm(signum: int, frame: Any) -> None:
        raise _Hang

    escaped = None
    hang = False
    _peak_reset()
    start = time.perf_counter()
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, HANG_S)
    try:
        main.run(args)
        code: int = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except _Hang:
        code, hang = -1, True
    except BaseException as exc:  # what escaped gradcli's own handler
        code, escaped = -2, f"{type(exc).__name__}: {exc}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        sys.stdin, sys.stdout, sys.stderr = saved
    secs = time.perf_counter() - start
    texts = []
    for stream in (out, err):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
        try:
            texts.append(stream.buffer.getvalue().decode("utf-8", "replace"))  # type: ignore[attr-defined]
        except ValueError:
            texts.append("")
    return {"code": code, "out": texts[0], "err": texts[1], "secs": secs,
            "hang": hang or secs > HANG_S, "escaped": escaped, "peak_kb": _peak_kb()}


def _shows_sentinel(out: str) -> bool:
    return SENTINEL in out or "424242" in out


def worker() -> None:
    """Read cases (JSON lines) from stdin, answer each with a JSON line."""
    import resource
    import warnings

    warnings.simplefilter("ignore")
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_KB * 1024, LIMIT_KB * 1024))
    os.environ.setdefault("COLUMNS", "100")
    from gradcli.cli import main  # noqa: F401 - loaded once, before the first case

    alone: dict[str, bool] = {}
    for line in sys.stdin:
        job = json.loads(line)
        stdin = base64.b64decode(job["stdin"])
        res = run_in_process(job["args"], stdin)
        internal = [ln for ln in (res["out"] + "\n" + res["err"]).splitlines()
                    if INTERNAL.search(ln)]
        if res["escaped"]:
            internal.append(f"escaped: {res['escaped']}")
        lost = False
        if not res["hang"] and not _shows_sentinel(res["out"]):
            # does the sentinel print with these flags when it runs alone?
            key = json.dumps(job["alone"])
            if key not in alone:
                alone_stdin = (SENTINEL + "\n").encode() if job["alone"][-1] in ("-", "repl") \
                    else b""
                alone[key] = _shows_sentinel(run_in_process(job["alone"], alone_stdin)["out"])
            lost = alone[key]
        answer = {"code": res["code"], "internal": internal[:5], "hang": res["hang"],
                  "secs": round(res["secs"], 3), "peak_kb": res["peak_kb"], "lost": lost,
                  "err_tail": res["err"][-300:]}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


# ---------------------------------------------------------------------------
# The parent


def _alone_args(case: Case) -> list[str]:
    """The case's command line with the sentinel as its only statement."""
    if case.mode == "repl":
        return ["repl"]
    if case.mode == "stdin":
        return case.args
    return [*case.args[: case.args.index("--") + 1], SENTINEL]


class Worker:
    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> subprocess.Popen[str]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "--worker"], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, text=True, env=self.env, bufsize=1)
        return self.proc

    def run(self, case: Case) -> dict[str, Any]:
        proc = self.start()
        job = {"args": case.args, "stdin": base64.b64encode(case.stdin).decode(),
               "alone": _alone_args(case)}
        assert proc.stdin is not None and proc.stdout is not None
        start = time.perf_counter()
        try:
            proc.stdin.write(json.dumps(job) + "\n")
            proc.stdin.flush()
        except BrokenPipeError:
            self.stop()
            return {"code": -3, "internal": ["worker died"], "hang": False, "secs": 0,
                    "peak_kb": 0, "lost": False, "err_tail": ""}
        ready, _, _ = select.select([proc.stdout], [], [], KILL_S)
        line = proc.stdout.readline() if ready else ""
        if not line:
            stuck = not ready
            self.stop()
            return {"code": -1 if stuck else -3, "internal": [] if stuck else ["worker died"],
                    "hang": stuck, "secs": round(time.perf_counter() - start, 3),
                    "peak_kb": 0, "lost": False, "err_tail": ""}
        return json.loads(line)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


def run_subprocess(case: Case, env: dict[str, str]) -> dict[str, Any]:
    """``case`` as a real gradcli process under the same limits."""
    import resource

    command = [sys.executable, "-m", "gradcli"]  # the gradcli PYTHONPATH names

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT_KB * 1024, LIMIT_KB * 1024))

    start = time.perf_counter()
    proc = subprocess.Popen([*command, *case.args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            preexec_fn=limits)
    try:
        out, err = proc.communicate(case.stdin, timeout=KILL_S)
        hang = False
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        hang = True
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    text = out.decode("utf-8", "replace") + err.decode("utf-8", "replace")
    return {"code": proc.returncode, "hang": hang or time.perf_counter() - start > HANG_S,
            "internal": [ln for ln in text.splitlines() if INTERNAL.search(ln)][:5],
            "maxrss_kb": usage.ru_maxrss}


def fuzz(seed: int, statements: int, config: Config | None = None,
         subprocess_every: int = SUBPROCESS_EVERY, progress: bool = False) -> dict[str, Any]:
    """Run the fuzzer; a summary with each failure and its reproducer."""
    config = config or Config()
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", COLUMNS="100", LINES="30")
    env.pop("NO_COLOR", None)
    worker = Worker(env)
    summary: dict[str, Any] = {
        "seed": seed, "config": dataclasses.asdict(config), "cases": 0, "statements": 0,
        "by_mode": {}, "internal_errors": [], "hangs": [], "memory_over_1gb": [],
        "bad_status": [], "lost_lines": [], "worker_deaths": [], "subprocess_cases": 0,
        "subprocess_failures": [], "seconds": 0.0, "slowest": []}
    start = time.perf_counter()
    slow: list[tuple[float, str]] = []
    try:
        for i, case in enumerate(cases(seed, statements, config)):
            res = worker.run(case)
            summary["cases"] += 1
            summary["statements"] += case.statements
            summary["by_mode"][case.mode] = summary["by_mode"].get(case.mode, 0) + 1
            where = {"case": i, "reproducer": case.reproducer(), "secs": res["secs"]}
            if res["internal"] and res["internal"] != ["worker died"]:
                summary["internal_errors"].append({**where, "lines": res["internal"]})
            if res["internal"] == ["worker died"]:
                summary["worker_deaths"].append({**where, "err": res.get("err_tail", "")})
            if res["hang"]:
                summary["hangs"].append(where)
            if res["peak_kb"] > MEMORY_KB:
                summary["memory_over_1gb"].append({**where, "peak_mb": res["peak_kb"] // 1024})
            if res["code"] not in (0, 1, 2, 3) and not res["hang"] and res["code"] != -3:
                summary["bad_status"].append({**where, "code": res["code"]})
            if res["lost"]:
                summary["lost_lines"].append({**where, "err": res["err_tail"]})
            slow.append((res["secs"], case.reproducer()))
            if subprocess_every and i % subprocess_every == 0:
                sub = run_subprocess(case, env)
                summary["subprocess_cases"] += 1
                if sub["internal"] or sub["hang"] or sub["code"] not in (0, 1, 2, 3):
                    summary["subprocess_failures"].append({**where, **sub})
            if progress and i % 200 == 0:
                print(f"{i} cases, {summary['statements']} statements, "
                      f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    finally:
        worker.stop()
    summary["seconds"] = round(time.perf_counter() - start, 1)
    summary["slowest"] = [{"secs": s, "reproducer": r} for s, r in sorted(slow)[-10:][::-1]]
    return summary


def counts(summary: dict[str, Any]) -> dict[str, int]:
    keys = ("internal_errors", "hangs", "memory_over_1gb", "bad_status", "lost_lines",
            "worker_deaths", "subprocess_failures")
    return {"cases": summary["cases"], "statements": summary["statements"],
            **{k: len(summary[k]) for k in keys}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--statements", type=int, default=1000)
    parser.add_argument("--subprocess-every", type=int, default=SUBPROCESS_EVERY)
    parser.add_argument("--json", help="write the whole summary here")
    parser.add_argument("--ci", action="store_true", help="the CI test's configuration")
    args = parser.parse_args(argv)
    if args.worker:
        worker()
        return 0
    config = CI_CONFIG if args.ci else Config()
    summary = fuzz(args.seed, args.statements, config, args.subprocess_every, progress=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(summary, fh, indent=1)
    print(json.dumps(counts(summary), indent=1))
    print(f"{summary['seconds']} s")
    return 0


CI_CONFIG = Config(extremes=False, big_arrays=False)
"""The configuration tests/test_fuzz.py runs. It leaves out, while issue 30's
other sections are open on their branches: extreme numbers (exact arithmetic
in formulas: internal errors and hangs, §1) and huge arrays (zeros(1e20, 0)'s
internal error, printing 1e7 elements past 10 s, §2)."""


if __name__ == "__main__":
    sys.exit(main())
