"""Finding the ``qrc`` binary and talking to ``qrc serve`` over a pipe.

One ``qrc serve`` process per Python process (started on first use, ended
when Python exits) keeps the data sets sent to it and the models loaded.
Requests are JSON lines on its standard input (a data set's values follow
its request line as raw little-endian float64); responses and progress
events are JSON lines on its standard output, read by a thread into a
queue so that the caller's thread can be interrupted (KeyboardInterrupt)
at any moment without losing a line.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Callable, Iterable, Optional

from .errors import ServerError

PROTOCOL = 1

_lock = threading.Lock()
_server: Optional["Server"] = None


def _is_source_tree(d: Path) -> bool:
    gomod = d / "go.mod"
    try:
        return gomod.is_file() and "module github.com/qrc-lang/qrc" in gomod.read_text().splitlines()[0]
    except (OSError, IndexError):
        return False


def source_tree() -> Optional[Path]:
    """The qrc source tree to build the binary from: $QRC_SOURCE, or the
    clone this package lies in (python/qrc/ of the repository), if any."""
    env = os.environ.get("QRC_SOURCE")
    if env:
        return Path(env).resolve()
    here = Path(__file__).resolve().parent
    for d in [here.parent.parent, *here.parents]:
        if _is_source_tree(d):
            return d
    return None


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "qrc-python"


def _newest_source(root: Path) -> float:
    newest = 0.0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in ("testdata", "python", "node_modules")]
        for f in filenames:
            if f.endswith(".go") or f in ("go.mod", "go.sum"):
                try:
                    newest = max(newest, os.stat(os.path.join(dirpath, f)).st_mtime)
                except OSError:
                    pass
    return newest


def build(root: Path) -> Path:
    """Builds ``qrc`` from the source tree ``root`` with ``go build`` into
    the cache (~/.cache/qrc-python/), unless the binary there is newer than
    every Go file of the tree, and returns its path."""
    go = shutil.which("go")
    if go is None:
        raise ServerError(f"cannot build qrc from {root}: no Go toolchain (go) on PATH; set QRC_BINARY to a qrc binary")
    out = _cache_dir() / hashlib.sha256(str(root).encode()).hexdigest()[:16] / "qrc"
    try:
        if out.stat().st_mtime >= _newest_source(root):
            return out
    except OSError:
        pass
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f"qrc.{os.getpid()}.tmp")
    proc = subprocess.run([go, "build", "-o", str(tmp), "./cmd/qrc"], cwd=root, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ServerError(f"go build ./cmd/qrc in {root} failed:\n{proc.stderr}")
    os.replace(tmp, out)
    return out


def _serves(binary: str) -> bool:
    try:
        p = subprocess.run([binary, "help", "serve"], capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return p.returncode == 0


def find_binary() -> str:
    """The ``qrc`` binary to run, in this order: $QRC_BINARY; one built
    from $QRC_SOURCE; ``qrc`` on PATH if it has ``qrc serve``; one built
    from the clone this package lies in (with ``go`` on PATH)."""
    env = os.environ.get("QRC_BINARY")
    if env:
        if not os.access(env, os.X_OK):
            raise ServerError(f"QRC_BINARY={env} is not an executable file")
        return env
    if os.environ.get("QRC_SOURCE"):
        return str(build(source_tree()))
    on_path = shutil.which("qrc")
    if on_path and _serves(on_path):
        return on_path
    root = source_tree()
    if root is not None and shutil.which("go"):
        return str(build(root))
    hint = f" ({on_path} is too old: it has no 'qrc serve')" if on_path else ""
    raise ServerError(
        "cannot find the qrc binary" + hint + ": set QRC_BINARY to it, put a qrc with 'qrc serve' on PATH "
        "(go install ./cmd/qrc in a clone), or set QRC_SOURCE to a clone to build it with go"
    )


class Server:
    """A running ``qrc serve`` process."""

    def __init__(self, binary: Optional[str] = None):
        self.binary = binary or find_binary()
        try:
            # A session of its own: Ctrl-C at a terminal interrupts Python,
            # which stops the solve through the pipe; the signal never
            # reaches the server directly.
            self.proc = subprocess.Popen(
                [self.binary, "serve"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as e:
            raise ServerError(f"cannot start {self.binary} serve: {e}") from e
        self._wlock = threading.Lock()  # one writer at a time
        self._rlock = threading.RLock()  # one request/response exchange at a time
        self._next = 0
        self._current = 0  # the request waiting for its response
        self._pending: list = []  # frees to send before the next request
        self._lines: "queue.Queue[Optional[bytes]]" = queue.Queue()
        self._reader = threading.Thread(target=self._read, name="qrc-serve-reader", daemon=True)
        self._reader.start()
        hello = self.request({"op": "hello"})
        if hello.get("protocol") != PROTOCOL:
            self.close()
            raise ServerError(f"{self.binary} speaks protocol {hello.get('protocol')}, this package {PROTOCOL}")
        self.version = hello.get("version", "")

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        for line in out:
            self._lines.put(line)
        self._lines.put(None)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def _write(self, msg: dict, payload: Iterable[memoryview] = ()) -> None:
        line = json.dumps(msg, allow_nan=False).encode() + b"\n"
        with self._wlock:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.write(line)
                for chunk in payload:
                    self.proc.stdin.write(chunk)
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError) as e:
                raise ServerError(self._gone(self.proc.poll())) from e
            except BaseException:
                # stopped in the middle of a request (Ctrl-C while a large
                # frame is sent): the stream cannot be resumed
                self.kill()
                raise

    def free_later(self, msg: dict) -> None:
        """Queues a free request, sent before the next request: a finalizer
        may run at any moment, even while a request waits for its response
        on this thread, so it must not make a request itself."""
        self._pending.append(msg)

    def _gone(self, code) -> str:
        if self._next <= 1:  # it never answered
            return f"{self.binary} serve exited (status {code}) before answering: is it a qrc that has 'qrc serve'?"
        return f"qrc serve ended ({self.binary}, exit status {code}); load the model again"

    def interrupt(self) -> None:
        """Stops the solve of the request waiting for its response (it
        returns with status interrupted), even if qrc serve has not started
        it yet."""
        self._write({"op": "interrupt", "target": self._current})

    def _next_line(self, timeout: Optional[float] = None) -> dict:
        while True:
            try:
                line = self._lines.get(timeout=0.1 if timeout is None else timeout)
            except queue.Empty:
                if timeout is not None:
                    raise
                continue
            if line is None:
                self._lines.put(None)
                raise ServerError(self._gone(self.proc.wait()))
            return json.loads(line)

    def request(
        self,
        msg: dict,
        payload: Iterable[memoryview] = (),
        on_event: Optional[Callable[[dict], None]] = None,
        on_interrupt: Optional[Callable[[], bool]] = None,
    ) -> dict:
        """Sends a request and returns its response (a dict with ok true, or
        raises the error it carries). Events before the response go to
        on_event. A KeyboardInterrupt while waiting (or raised by on_event)
        calls on_interrupt, which stops the server's work and returns True
        to go on waiting for the response, or False to re-raise."""
        from .errors import _error_from_json

        with self._rlock:
            while self._pending:  # their responses (id 0) are skipped below
                self._write(dict(self._pending.pop(), id=0))
            self._next += 1
            rid = self._next
            msg = dict(msg, id=rid)
            self._current = rid
            self._write(msg, payload)
            interrupted = False
            failed: Optional[BaseException] = None  # an error of on_event
            while True:
                try:
                    resp = self._next_line()
                    if resp.get("id") != rid:
                        continue  # a late event of an earlier request
                    if "event" in resp:
                        if on_event is not None and failed is None:
                            try:
                                on_event(resp)
                            except KeyboardInterrupt:
                                raise
                            except Exception as e:  # stop the work, then raise it
                                failed = e
                                self.interrupt()
                        continue
                    break
                except KeyboardInterrupt:
                    if interrupted or on_interrupt is None or not on_interrupt():
                        # a second Ctrl-C: give up on the server
                        self.kill()
                        raise
                    interrupted = True
            if failed is not None:
                raise failed
            if not resp.get("ok"):
                raise _error_from_json(resp.get("error") or {})
            return resp

    def kill(self) -> None:
        global _server
        try:
            self.proc.kill()
        except OSError:
            pass
        with _lock:
            if _server is self:
                _server = None

    def close(self) -> None:
        """Ends the server: its input closes, it stops and exits."""
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def server() -> Server:
    """The process's ``qrc serve``, started on first use (and again if it
    died)."""
    global _server
    with _lock:
        if _server is None or not _server.alive():
            _server = Server()
        return _server


def _close_at_exit() -> None:
    global _server
    s = _server
    _server = None
    if s is not None:
        s.close()


atexit.register(_close_at_exit)


if sys.version_info < (3, 9):  # pragma: no cover
    raise ImportError("qrc needs Python 3.9 or newer")
